package tools

import (
	"context"
	"fmt"
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
					return pathErrorf(ErrTooLarge, rel, "%q is %d bytes, over the limit of %d for editing", rel, fi.Size(), w.opts.MaxWriteBytes)
				}
				return nil
			}
			ch, err := w.replaceFileWith(ctx, rel, false, check, w.opts.MaxWriteBytes, func(old []byte) ([]byte, error) {
				if isBinary(old) {
					return nil, pathErrorf(ErrBinaryFile, rel, "%q is a binary file; edit_file changes text files only", rel)
				}
				text := string(old)
				n := strings.Count(text, oldS)
				switch {
				case n == 0:
					return nil, pathErrorf(ErrNoMatch, rel, "old_string was not found in %q; read the file again and copy the exact text, including whitespace and indentation", rel)
				case n != want && want == 1:
					return nil, pathErrorf(ErrMatchCount, rel, "old_string occurs %d times in %q but must be unique; include more of the surrounding lines to pick one, or set expected_replacements to %d to replace them all", n, rel, n)
				case n != want:
					return nil, pathErrorf(ErrMatchCount, rel, "old_string occurs %d times in %q, not the %d given in expected_replacements; nothing was changed", n, rel, want)
				}
				data = []byte(strings.ReplaceAll(text, oldS, newS))
				if int64(len(data)) > w.opts.MaxWriteBytes {
					return nil, pathErrorf(ErrTooLarge, rel, "after the edit %q would be %d bytes, over the limit of %d", rel, len(data), w.opts.MaxWriteBytes)
				}
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
