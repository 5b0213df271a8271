package tools

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"os"
	"strings"
)

// isBinary uses git's rule: a NUL byte in the first 8000 bytes.
func isBinary(b []byte) bool {
	return bytes.IndexByte(b[:min(len(b), 8000)], 0) >= 0
}

func (w *Workspace) readFileTool() Tool {
	return New("read_file", "Read a text file of the workspace. Large files are returned in part; "+
		"use offset and limit (line numbers) to read the rest.").
		Param("path", "string", "File path relative to the workspace folder.", Required, MinLength(1)).
		Param("offset", "integer", "First line to return, counting from 1.", Optional, Minimum(1), Default(1)).
		Param("limit", "integer", "Number of lines to return; all that fit when absent.", Optional, Minimum(1)).
		Handle(func(ctx context.Context, call Call, progress ProgressFunc) (Result, error) {
			rel, err := clean(call.Args.String("path"))
			if err != nil {
				return Result{}, err
			}
			f, fi, err := w.openReadable(rel)
			if err != nil {
				return Result{}, err
			}
			defer f.Close()
			src, err := w.buffered(ctx, rel, f)
			if err != nil {
				return Result{}, err
			}
			offset := call.Args.Int("offset", 1)
			limit := call.Args.Int("limit", 0)
			// Reading starts at line offset; lines are found in a bounded
			// window so a huge file costs at most a scan, never a copy.
			capBytes := int(w.opts.MaxReadBytes)
			var out strings.Builder
			line, shown, truncated := 1, 0, false
			br := newLineReader(src)
			for {
				if err := ctx.Err(); err != nil {
					return Result{}, cancelledf(err, "reading %q was cancelled", rel)
				}
				l, err := br.next()
				if len(l) > 0 {
					if bytes.IndexByte(l, 0) >= 0 {
						return Result{}, pathErrorf(ErrBinaryFile, rel, "%q is a binary file (%d bytes); read_file returns text only", rel, fi.Size())
					}
					if line >= offset {
						if limit > 0 && shown == limit {
							truncated = true
							break
						}
						if out.Len()+len(l) > capBytes {
							truncated = true
							break
						}
						out.Write(l)
						shown++
					}
					line++
				}
				if err == io.EOF {
					break
				}
				if err != nil {
					return Result{}, w.explain(rel, err)
				}
			}
			total := line - 1
			content := out.String()
			switch {
			case offset > 1 && shown == 0 && !truncated:
				return Result{}, pathErrorf(ErrNotFound, rel, "%q has %d lines, so there is nothing from line %d; use a smaller offset", rel, total, offset)
			case truncated:
				last := offset + shown - 1
				if !strings.HasSuffix(content, "\n") && content != "" {
					content += "\n"
				}
				content += fmt.Sprintf("[lines %d-%d of %q shown; %d bytes in all; call read_file with offset %d to read on]", offset, last, rel, fi.Size(), last+1)
			case offset > 1:
				if !strings.HasSuffix(content, "\n") {
					content += "\n"
				}
				content += fmt.Sprintf("[lines %d-%d of %d]", offset, total, total)
			}
			return Result{Content: content, Details: &Details{Path: rel, Bytes: int64(out.Len())}}, nil
		})
}

// buffered is what read_file reads of rel, open as f: the editor's text of it when the
// options have [Buffers] that know it, else f.
func (w *Workspace) buffered(ctx context.Context, rel string, f *os.File) (io.Reader, error) {
	if w.opts.Buffers == nil {
		return f, nil
	}
	text, ok, err := w.opts.Buffers.Text(ctx, w.abs(rel))
	if err != nil {
		return nil, fmt.Errorf("%q could not be read from the editor: %w", rel, err)
	}
	if !ok {
		return f, nil
	}
	return strings.NewReader(text), nil
}

// openReadable opens rel, a cleaned path, for reading when a tool may read it: a regular
// file of the workspace (links inside it followed), singly linked, none of the app's own
// files. Every refusal is a sentence about rel.
func (w *Workspace) openReadable(rel string) (*os.File, os.FileInfo, error) {
	app := w.appFiles()
	f, fi, err := openRegular(w.root, rel, rel, func(fi os.FileInfo) error { return app.refuse(w, rel, fi) })
	if err != nil {
		return nil, nil, w.explain(rel, err)
	}
	if err := regularFile(rel, fi); err != nil { // fi is of the opened file: no gap between check and read
		f.Close()
		return nil, nil, err
	}
	return f, fi, nil
}

// ReadText returns the whole text of the file p of the workspace, read as read_file reads
// it: nothing outside the workspace (also through a link), none of the app's own files, no
// FIFO, device or hard link, no binary file. A file of more than limit bytes is refused
// ([ErrTooLarge]) without being read. What the app reads of a workspace for the model
// besides the tools (its instructions) is read here, so it cannot reach further than the
// model itself.
func (w *Workspace) ReadText(ctx context.Context, p string, limit int64) (string, error) {
	rel, err := clean(p)
	if err != nil {
		return "", err
	}
	f, fi, err := w.openReadable(rel)
	if err != nil {
		return "", err
	}
	defer f.Close()
	tooLarge := func(size int64) error {
		return pathErrorf(ErrTooLarge, rel, "%q is %s, over the limit of %s", rel, sizeText(size), sizeText(limit))
	}
	if fi.Size() > limit {
		return "", tooLarge(fi.Size())
	}
	if err := ctx.Err(); err != nil {
		return "", cancelledf(err, "reading %q was cancelled", rel)
	}
	b, err := io.ReadAll(io.LimitReader(f, limit+1))
	switch {
	case err != nil:
		return "", w.explain(rel, err)
	case int64(len(b)) > limit: // grew since it was measured
		return "", tooLarge(int64(len(b)))
	case isBinary(b):
		return "", pathErrorf(ErrBinaryFile, rel, "%q is a binary file (%d bytes), not text", rel, len(b))
	}
	return string(b), nil
}

// lineReader returns lines with their "\n"; a line longer than the buffer
// comes back in pieces, which read_file counts as one line each (it only
// matters for files without newlines, which are capped anyway).
type lineReader struct {
	r   io.Reader
	buf []byte
	n   int // valid bytes in buf
	err error
}

func newLineReader(r io.Reader) *lineReader { return &lineReader{r: r, buf: make([]byte, 64<<10)} }

func (lr *lineReader) next() ([]byte, error) {
	for {
		if i := bytes.IndexByte(lr.buf[:lr.n], '\n'); i >= 0 {
			l := bytes.Clone(lr.buf[:i+1])
			lr.n = copy(lr.buf, lr.buf[i+1:lr.n])
			return l, nil
		}
		if lr.err != nil || lr.n == len(lr.buf) {
			l := bytes.Clone(lr.buf[:lr.n])
			lr.n = 0
			if lr.err == nil {
				return l, nil
			}
			return l, lr.err
		}
		m, err := lr.r.Read(lr.buf[lr.n:])
		lr.n += m
		lr.err = err
	}
}
