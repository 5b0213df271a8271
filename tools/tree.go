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
		Changes(func(ctx context.Context, call Call) ([]string, error) {
			rel, err := w.writablePath(call.Args.String("path"))
			if err != nil {
				return nil, err
			}
			if _, err := w.root.Stat(rel); err == nil {
				return nil, nil // there already: nothing changes
			}
			return append(w.missingParents(rel), rel), nil
		}, func(ctx context.Context, call Call) (Preview, error) {
			rel, err := w.writablePath(call.Args.String("path"))
			if err != nil {
				return Preview{}, err
			}
			_, err = w.root.Stat(rel)
			return Preview{Path: rel, Created: err != nil}, nil
		}).
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
	return New("delete_path", "Delete a file, a symbolic link (not its target), or a folder of the workspace. "+
		"A folder must be empty unless recursive is true, which deletes it with everything in it.").
		Param("path", "string", "Path relative to the workspace folder.", Required, MinLength(1)).
		Param("recursive", "boolean", "Delete a folder with everything in it.", Optional, Default(false)).
		Mode(Sequential).
		Approval(ApprovalAsk).
		Changes(func(ctx context.Context, call Call) ([]string, error) {
			d, err := w.newDeletion(ctx, call)
			if err != nil {
				return nil, err
			}
			return removalPaths(d.removes), nil
		}, func(ctx context.Context, call Call) (Preview, error) {
			d, err := w.newDeletion(ctx, call)
			if err != nil {
				return Preview{}, err
			}
			p := Preview{Path: d.rel, Bytes: sizeOf(d.removes), Removes: d.removes}
			if d.fi.Mode().IsRegular() {
				p.Diff = w.deletionDiff(ctx, d.rel, d.fi)
			}
			return p, nil
		}).
		Handle(func(ctx context.Context, call Call, progress ProgressFunc) (Result, error) {
			del, err := w.newDeletion(ctx, call)
			if err != nil {
				return Result{}, err
			}
			if p, added := notTouched(ctx, removalPaths(del.removes)); added {
				return Result{}, pathErrorf(ErrAddedSince, p, "not deleted: %q is new, made by the user or another program after the delete was checked, "+
					"so it could not be put back; call delete_path again to delete it too", p)
			}
			rel, fi := del.rel, del.fi
			d := &Details{Path: rel, Changed: true, Bytes: sizeOf(del.removes)}
			what := "file"
			switch {
			case fi.Mode()&fs.ModeSymlink != 0:
				what = "symbolic link"
			case fi.IsDir():
				what = "folder"
				if n := len(del.removes) - 1; n > 0 {
					what = fmt.Sprintf("folder (with the %d entries in it)", n)
				}
			case !fi.Mode().IsRegular():
				what = strings.TrimPrefix(strings.TrimPrefix(specialKind(fi.Mode()), "a "), "an ") // removed by name, never opened
			default:
				d.Diff = w.deletionDiff(ctx, rel, fi)
			}
			// deepest first: each folder is empty when its turn comes
			for i := len(del.removes) - 1; i >= 0; i-- {
				p := del.removes[i].Path
				if err := ctx.Err(); err != nil {
					return Result{}, fmt.Errorf("deleting %q was stopped; part of it may be deleted: %w", rel, err)
				}
				if err := w.root.Remove(p); err != nil {
					if errors.Is(err, os.ErrExist) || isNotEmpty(err) {
						return Result{}, pathErrorf(ErrNotEmpty, p, "folder %q is not empty; delete its entries first", p)
					}
					return Result{}, w.explain(p, err)
				}
			}
			return Result{Content: fmt.Sprintf("Deleted %s %s.", what, rel), Details: d}, nil
		})
}

// deletion is one delete_path call, checked: the path, what is there, and everything it
// removes (the path itself first, then what a folder holds, parents first).
type deletion struct {
	rel     string
	fi      os.FileInfo
	removes []Removal
}

func (w *Workspace) newDeletion(ctx context.Context, call Call) (*deletion, error) {
	rel, err := w.writablePath(call.Args.String("path"))
	if err != nil {
		return nil, err
	}
	fi, err := w.lstat(rel)
	if err != nil {
		return nil, err
	}
	if fi == nil {
		return nil, pathErrorf(ErrNotFound, rel, "%q does not exist, so there is nothing to delete; use list_dir to see what is there", rel)
	}
	d := &deletion{rel: rel, fi: fi}
	switch {
	case fi.Mode()&fs.ModeSymlink != 0:
		d.removes = []Removal{{Path: rel, Kind: KindSymlink}}
	case fi.IsDir():
		if err := w.appFiles().refuseFolder(rel, fi); err != nil {
			return nil, err
		}
		if !call.Args.Bool("recursive", false) {
			entries, err := w.readDir(ctx, rel)
			if err != nil {
				return nil, err
			}
			if len(entries) > 0 {
				return nil, pathErrorf(ErrNotEmpty, rel, "folder %q is not empty (%d entries); delete its entries first, or set recursive to true to delete it with everything in it", rel, len(entries))
			}
		}
		if d.removes, err = w.tree(ctx, rel); err != nil {
			return nil, err
		}
	case !fi.Mode().IsRegular():
		d.removes = []Removal{{Path: rel, Kind: KindOther}}
	default:
		d.removes = []Removal{{Path: rel, Kind: KindFile, Bytes: fi.Size()}}
	}
	return d, nil
}

// deletionDiff is the diff of a text file deleted: every line removed.
func (w *Workspace) deletionDiff(ctx context.Context, rel string, fi os.FileInfo) string {
	if links(fi) == 1 && fi.Size() <= maxDiffInput {
		if old, err := readLimited(ctx, w.root, rel, rel, maxDiffInput); err == nil && !isBinary(old) {
			return diff.Unified("a/"+rel, "/dev/null", string(old), "", diff.Options{MaxBytes: w.opts.MaxDiffBytes})
		}
	}
	return ""
}
