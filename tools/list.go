package tools

import (
	"context"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path"
	"slices"
	"strings"
)

// skippedDirs are left out of listings and searches unless asked for.
var skippedDirs = []string{".git", "node_modules"}

func skipped(name string) bool { return slices.Contains(skippedDirs, name) }

// readDir lists a folder of the workspace, sorted by name. The folder is
// opened so that a FIFO in its place fails at once instead of waiting, and
// its entries are read in batches so that a cancelled context stops a huge
// folder.
func (w *Workspace) readDir(ctx context.Context, rel string) ([]fs.DirEntry, error) {
	if fi, err := w.root.Stat(rel); err != nil {
		return nil, w.explain(rel, err)
	} else if !fi.IsDir() {
		return nil, notAFolder(rel, fi)
	}
	f, err := w.root.OpenFile(rel, os.O_RDONLY|openFolderFlags, 0)
	if err != nil {
		return nil, w.explain(rel, err)
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil {
		return nil, w.explain(rel, err)
	}
	if !fi.IsDir() {
		return nil, notAFolder(rel, fi)
	}
	var entries []fs.DirEntry
	for {
		if err := ctx.Err(); err != nil {
			return nil, cancelledf(err, "reading the folder %q was cancelled", rel)
		}
		batch, err := f.ReadDir(1024)
		entries = append(entries, batch...)
		if err == io.EOF {
			break
		}
		if err != nil {
			return nil, w.explain(rel, err)
		}
	}
	slices.SortFunc(entries, func(a, b fs.DirEntry) int { return strings.Compare(a.Name(), b.Name()) })
	return entries, nil
}

func notAFolder(rel string, fi os.FileInfo) error {
	if fi.Mode().IsRegular() {
		return pathErrorf(ErrWrongKind, rel, "%q is a file, not a folder; use read_file to read it", rel)
	}
	return pathErrorf(ErrWrongKind, rel, "%q is %s, not a folder; it was left alone", rel, specialKind(fi.Mode()))
}

func (w *Workspace) listDirTool() Tool {
	return New("list_dir", "List the entries of a workspace folder: folders end with \"/\", files show their size, "+
		"symbolic links show their target. .git and node_modules are skipped unless include_skipped is true.").
		Param("path", "string", "Folder relative to the workspace folder; \".\" is the workspace itself.", Optional, Default(".")).
		Param("recursive", "boolean", "List subfolders too.", Optional, Default(false)).
		Param("depth", "integer", "How many levels below path to list when recursive.", Optional, Minimum(1), Default(3)).
		Param("include_skipped", "boolean", "Also list inside .git and node_modules.", Optional, Default(false)).
		Handle(func(ctx context.Context, call Call, progress ProgressFunc) (Result, error) {
			rel, err := cleanFolder(call.Args.String("path"))
			if err != nil {
				return Result{}, err
			}
			depth := 1
			if call.Args.Bool("recursive", false) {
				depth = min(call.Args.Int("depth", 3), w.opts.MaxListDepth)
			}
			all := call.Args.Bool("include_skipped", false)
			app := w.appFiles()
			if err := app.refuseConfig(w, rel, w.statOrNil(rel)); err != nil {
				return Result{}, err
			}
			var lines []string
			full := false
			var walk func(dir string, level int) error
			walk = func(dir string, level int) error {
				if err := ctx.Err(); err != nil {
					return cancelledf(err, "listing %q was cancelled", rel)
				}
				entries, err := w.readDir(ctx, dir)
				if err != nil {
					return err
				}
				for _, e := range entries {
					if len(lines) == w.opts.MaxListEntries {
						full = true
						return nil
					}
					child := path.Join(dir, e.Name())
					shown := child
					if rel != "." {
						shown = strings.TrimPrefix(child, rel+"/")
					}
					switch {
					case e.Type()&fs.ModeSymlink != 0:
						target, _ := w.root.Readlink(child)
						lines = append(lines, fmt.Sprintf("%s -> %s", shown, target))
					case e.IsDir():
						if skipped(e.Name()) && !all {
							lines = append(lines, shown+"/ (skipped)")
							continue
						}
						if fi, err := e.Info(); err == nil {
							if _, ok := app.configFolderAt(fi); ok {
								lines = append(lines, shown+"/ ("+roleConfig+", not listed)")
								continue
							}
						}
						lines = append(lines, shown+"/")
						if level < depth {
							if err := walk(child, level+1); err != nil {
								return err
							}
						}
					case !e.Type().IsRegular(): // listed from the folder's entry, never opened
						lines = append(lines, fmt.Sprintf("%s (%s)", shown, specialKind(e.Type())))
					default:
						size := int64(-1)
						if fi, err := e.Info(); err == nil {
							size = fi.Size()
						}
						lines = append(lines, fmt.Sprintf("%s (%s)", shown, humanBytes(size)))
					}
				}
				return nil
			}
			if err := walk(rel, 1); err != nil {
				return Result{}, err
			}
			content := strings.Join(lines, "\n")
			switch {
			case len(lines) == 0:
				content = fmt.Sprintf("%q is empty.", rel)
			case full:
				content += fmt.Sprintf("\n[stopped after %d entries; list a subfolder or use a smaller depth]", len(lines))
			}
			return Result{Content: content, Details: &Details{Path: rel}}, nil
		})
}

func humanBytes(n int64) string {
	switch {
	case n < 0:
		return "size unknown"
	case n < 1<<10:
		return fmt.Sprintf("%d B", n)
	case n < 1<<20:
		return fmt.Sprintf("%.1f KiB", float64(n)/(1<<10))
	default:
		return fmt.Sprintf("%.1f MiB", float64(n)/(1<<20))
	}
}
