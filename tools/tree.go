package tools

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"strings"

	"prototyper/tools/diff"
)

func (w *Workspace) makeDirTool() Tool {
	return New("make_dir", "Create a folder in the workspace, with any missing parent folders.").
		Param("path", "string", "Folder path relative to the workspace folder.", Required, MinLength(1)).
		Mode(Sequential).
		Handle(func(ctx context.Context, call Call, progress ProgressFunc) (Result, error) {
			rel, err := w.writablePath(call.Args.String("path"))
			if err != nil {
				return Result{}, err
			}
			if fi, err := w.root.Stat(rel); err == nil {
				if !fi.IsDir() {
					return Result{}, pathErrorf(ErrWrongKind, rel, "%q already exists and is a file, not a folder; choose another name", rel)
				}
				return Result{Content: fmt.Sprintf("Folder %s already exists.", rel), Details: &Details{Path: rel}}, nil
			}
			if err := w.root.MkdirAll(rel, 0o755); err != nil {
				return Result{}, w.explain(rel, err)
			}
			return Result{Content: fmt.Sprintf("Created folder %s.", rel), Details: &Details{Path: rel, Created: true, Changed: true}}, nil
		})
}

func (w *Workspace) deletePathTool() Tool {
	return New("delete_path", "Delete a file, a symbolic link (not its target), or an empty folder of the workspace. "+
		"Folders must be emptied first.").
		Param("path", "string", "Path relative to the workspace folder.", Required, MinLength(1)).
		Mode(Sequential).
		Approval(ApprovalAsk).
		Handle(func(ctx context.Context, call Call, progress ProgressFunc) (Result, error) {
			rel, err := w.writablePath(call.Args.String("path"))
			if err != nil {
				return Result{}, err
			}
			fi, err := w.lstat(rel)
			if err != nil {
				return Result{}, err
			}
			if fi == nil {
				return Result{}, pathErrorf(ErrNotFound, rel, "%q does not exist, so there is nothing to delete; use list_dir to see what is there", rel)
			}
			d := &Details{Path: rel, Changed: true}
			what := "file"
			switch {
			case fi.Mode()&fs.ModeSymlink != 0:
				what = "symbolic link"
			case fi.IsDir():
				what = "folder"
				if err := w.appFiles().refuseFolder(rel, fi); err != nil {
					return Result{}, err
				}
				entries, err := w.readDir(ctx, rel)
				if err != nil {
					return Result{}, err
				}
				if len(entries) > 0 {
					return Result{}, pathErrorf(ErrNotEmpty, rel, "folder %q is not empty (%d entries); delete its entries first", rel, len(entries))
				}
			case !fi.Mode().IsRegular():
				what = strings.TrimPrefix(strings.TrimPrefix(specialKind(fi.Mode()), "a "), "an ") // removed by name, never opened
			default:
				d.Bytes = fi.Size()
				if links(fi) == 1 && fi.Size() <= maxDiffInput {
					if old, err := readLimited(ctx, w.root, rel, rel, maxDiffInput); err == nil && !isBinary(old) {
						d.Diff = diff.Unified("a/"+rel, "/dev/null", string(old), "", diff.Options{MaxBytes: w.opts.MaxDiffBytes})
					}
				}
			}
			if err := w.root.Remove(rel); err != nil {
				if errors.Is(err, os.ErrExist) || isNotEmpty(err) {
					return Result{}, pathErrorf(ErrNotEmpty, rel, "folder %q is not empty; delete its entries first", rel)
				}
				return Result{}, w.explain(rel, err)
			}
			return Result{Content: fmt.Sprintf("Deleted %s %s.", what, rel), Details: d}, nil
		})
}
