package tools

import (
	"bytes"
	"context"
	"fmt"
	"math"
	"os"
	"strings"
)

func (w *Workspace) editFileTool() Tool {
	return New("edit_file", "Replace an exact piece of text in an existing file. old_string must match the file "+
		"exactly, including whitespace and indentation, and occur exactly once (or exactly expected_replacements times). "+
		"Read the file first.").
		Param("path", "string", "File path relative to the workspace folder.", Required, MinLength(1)).
		Param("old_string", "string", "The exact text to replace.", Required, MinLength(1)).
		Param("new_string", "string", "The text to put in its place.", Required).
		Param("expected_replacements", "integer", "How many occurrences to replace; all of them must be found.", Optional, Minimum(1), Default(1)).
		Mode(Sequential).
		Changes(func(ctx context.Context, call Call) ([]string, error) {
			e, err := w.newEdit(call)
			if err != nil {
				return nil, err
			}
			return []string{e.rel}, nil
		}, func(ctx context.Context, call Call) (Preview, error) {
			e, ch, err := w.applyEdit(ctx, call, dryRun, progressNone)
			if err != nil {
				return Preview{}, err
			}
			return previewOf(w.details(e.rel, ch, e.data)), nil
		}).
		Handle(func(ctx context.Context, call Call, progress ProgressFunc) (Result, error) {
			e, ch, err := w.applyEdit(ctx, call, writeReal, progress)
			if err != nil {
				return Result{}, err
			}
			plural := ""
			if e.want > 1 {
				plural = "s"
			}
			return Result{Content: fmt.Sprintf("Edited %s: replaced %d occurrence%s (%d bytes now).", e.rel, e.want, plural, len(e.data)), Details: w.details(e.rel, ch, e.data)}, nil
		})
}

// edit is one edit_file call: its checked arguments, and the new content once produced.
type edit struct {
	w          *Workspace
	rel        string
	oldS, newS string
	want       int
	data       []byte
}

// applyEdit makes the edit of call (how: writeReal, or dryRun for its preview). The edit is
// computed inside replaceFile, on the content read through the same open folder that the
// rename goes to.
func (w *Workspace) applyEdit(ctx context.Context, call Call, how writeFlags, progress ProgressFunc) (*edit, fileChange, error) {
	e, err := w.newEdit(call)
	if err != nil {
		return nil, fileChange{}, err
	}
	ch, err := w.replaceFileWith(ctx, e.rel, how, e.check, w.opts.MaxWriteBytes, e.produce, progress)
	return e, ch, err
}

func (w *Workspace) newEdit(call Call) (*edit, error) {
	rel, err := w.writablePath(call.Args.String("path"))
	if err != nil {
		return nil, err
	}
	e := &edit{w: w, rel: rel, oldS: call.Args.String("old_string"), newS: call.Args.String("new_string"),
		want: call.Args.Int("expected_replacements", 1)}
	if e.oldS == e.newS {
		return nil, pathErrorf(ErrNoMatch, rel, "old_string and new_string are the same, so the edit would change nothing; give the new text in new_string")
	}
	return e, nil
}

func (e *edit) check(fi os.FileInfo) error {
	rel, limit := e.rel, e.w.opts.MaxWriteBytes
	if fi == nil {
		return pathErrorf(ErrNotFound, rel, "%q does not exist; create it with write_file", rel)
	}
	if fi.Size() > limit {
		return pathErrorf(ErrTooLarge, rel, "%q is %s, over the limit of %s for editing; write the file anew with write_file", rel, sizeText(fi.Size()), sizeText(limit))
	}
	return nil
}

func (e *edit) produce(old []byte) ([]byte, error) {
	rel, limit, oldS, newS, want := e.rel, e.w.opts.MaxWriteBytes, e.oldS, e.newS, e.want
	if old == nil { // grew past the limit after check saw it
		return nil, pathErrorf(ErrTooLarge, rel, "%q is over the limit of %s for editing", rel, sizeText(limit))
	}
	if isBinary(old) {
		return nil, pathErrorf(ErrBinaryFile, rel, "%q is a binary file; edit_file changes text files only", rel)
	}
	n := bytes.Count(old, []byte(oldS))
	switch {
	case n == 0:
		return nil, pathErrorf(ErrNoMatch, rel, "old_string was not found in %q; read the file again and copy the exact text, including whitespace and indentation", rel)
	case n != want && want == 1:
		return nil, pathErrorf(ErrMatchCount, rel, "old_string occurs %d times in %q but must be unique; include more of the surrounding lines to pick one, or set expected_replacements to %d to replace them all", n, rel, n)
	case n != want:
		return nil, pathErrorf(ErrMatchCount, rel, "old_string occurs %d times in %q, not the %d given in expected_replacements; nothing was changed", n, rel, want)
	}
	// The size of the result is known from the count alone, so an edit that would be too
	// large is refused before any of it is built: n short matches each replaced by a long
	// text can ask for gigabytes.
	if size, ok := editedSize(len(old), n, len(oldS), len(newS), limit); !ok {
		got, lim := sizesText(size, limit)
		return nil, pathErrorf(ErrTooLarge, rel, "after the edit %q would be %s, over the limit of %s for a file; replace fewer occurrences or use a shorter new_string", rel, got, lim)
	}
	e.data = bytes.ReplaceAll(old, []byte(oldS), []byte(newS))
	return e.data, nil
}

// editedSize is the size of a text of size bytes after n occurrences of a
// string of oldLen bytes are replaced by one of newLen bytes, and whether it
// is within limit. Past the limit (or past what an int64 holds) the size
// returned is a lower bound, good enough to say how far over it is.
func editedSize(size, n, oldLen, newLen int, limit int64) (int64, bool) {
	grow := int64(newLen) - int64(oldLen)
	if grow > 0 && int64(n) > (math.MaxInt64-int64(size))/grow {
		return math.MaxInt64, false
	}
	result := int64(size) + int64(n)*grow
	return result, result <= limit
}

// sizeText writes a size for a person: "16 MiB", "1 GiB", "1.5 KiB", "512 bytes".
func sizeText(n int64) string {
	const k = 1 << 10
	switch {
	case n < k:
		return fmt.Sprintf("%d bytes", n)
	case n < k*k:
		return trimZero(float64(n)/k) + " KiB"
	case n < k*k*k:
		return trimZero(float64(n)/(k*k)) + " MiB"
	default:
		return trimZero(float64(n)/(k*k*k)) + " GiB"
	}
}

func trimZero(f float64) string {
	return strings.TrimSuffix(fmt.Sprintf("%.1f", f), ".0")
}

// sizesText writes two sizes that are compared, in bytes when the rounded
// forms would read the same.
func sizesText(a, b int64) (string, string) {
	sa, sb := sizeText(a), sizeText(b)
	if sa == sb && a != b {
		return fmt.Sprintf("%d bytes", a), fmt.Sprintf("%d bytes", b)
	}
	return sa, sb
}
