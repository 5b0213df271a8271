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
		Handle(func(ctx context.Context, call Call, progress ProgressFunc) (Result, error) {
			rel, err := w.writablePath(call.Args.String("path"))
			if err != nil {
				return Result{}, err
			}
			oldS, newS := call.Args.String("old_string"), call.Args.String("new_string")
			want := call.Args.Int("expected_replacements", 1)
			if oldS == newS {
				return Result{}, pathErrorf(ErrNoMatch, rel, "old_string and new_string are the same, so the edit would change nothing; give the new text in new_string")
			}
			// The edit is computed inside replaceFile's check, on the content
			// read through the same open folder that the rename goes to.
			var data []byte
			check := func(fi os.FileInfo) error {
				if fi == nil {
					return pathErrorf(ErrNotFound, rel, "%q does not exist; create it with write_file", rel)
				}
				if fi.Size() > w.opts.MaxWriteBytes {
					return pathErrorf(ErrTooLarge, rel, "%q is %s, over the limit of %s for editing; write the file anew with write_file", rel, sizeText(fi.Size()), sizeText(w.opts.MaxWriteBytes))
				}
				return nil
			}
			ch, err := w.replaceFileWith(ctx, rel, false, check, w.opts.MaxWriteBytes, func(old []byte) ([]byte, error) {
				if old == nil { // grew past the limit after check saw it
					return nil, pathErrorf(ErrTooLarge, rel, "%q is over the limit of %s for editing", rel, sizeText(w.opts.MaxWriteBytes))
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
				// The size of the result is known from the count alone, so an
				// edit that would be too large is refused before any of it is
				// built: n short matches each replaced by a long text can ask
				// for gigabytes.
				if size, ok := editedSize(len(old), n, len(oldS), len(newS), w.opts.MaxWriteBytes); !ok {
					got, limit := sizesText(size, w.opts.MaxWriteBytes)
					return nil, pathErrorf(ErrTooLarge, rel, "after the edit %q would be %s, over the limit of %s for a file; replace fewer occurrences or use a shorter new_string", rel, got, limit)
				}
				data = bytes.ReplaceAll(old, []byte(oldS), []byte(newS))
				return data, nil
			}, progress)
			if err != nil {
				return Result{}, err
			}
			plural := ""
			if want > 1 {
				plural = "s"
			}
			return Result{Content: fmt.Sprintf("Edited %s: replaced %d occurrence%s (%d bytes now).", rel, want, plural, len(data)), Details: w.details(rel, ch, data)}, nil
		})
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
