package tools

import (
	"os"
	"path/filepath"
	"strings"
)

// OpenToServe opens the file p of the workspace for the preview to serve: as read_file
// opens it (inside the workspace, also through a link; none of the app's own files; a
// regular file with one link), and never a file whose path, or where its links lead, has a
// name starting with a dot (.git, .prototyper, .env): those hold what a page has no reason
// to show. A folder is refused with [ErrWrongKind]; every refusal is a [*PathError].
func (w *Workspace) OpenToServe(p string) (*os.File, os.FileInfo, error) {
	rel, err := clean(p)
	if err != nil {
		return nil, nil, err
	}
	if hidden(rel) {
		return nil, nil, pathErrorf(ErrProtectedPath, rel, "%q is inside a hidden folder or is a hidden file, which the preview does not serve", rel)
	}
	f, fi, err := w.openReadable(rel)
	if err != nil {
		return nil, nil, err
	}
	// os.Root kept the open inside the workspace; a link inside it may still lead into a
	// hidden folder of the workspace.
	real, rerr := filepath.EvalSymlinks(filepath.Join(w.dir, filepath.FromSlash(rel)))
	dir, derr := filepath.EvalSymlinks(w.dir)
	inside, ierr := filepath.Rel(dir, real)
	if rerr != nil || derr != nil || ierr != nil || hidden(filepath.ToSlash(inside)) {
		f.Close()
		return nil, nil, pathErrorf(ErrProtectedPath, rel, "%q leads into a hidden folder or file, which the preview does not serve", rel)
	}
	return f, fi, nil
}

// hidden reports whether a cleaned slash path has a name starting with a dot.
func hidden(rel string) bool {
	for _, part := range strings.Split(rel, "/") {
		if strings.HasPrefix(part, ".") && part != "." {
			return true
		}
	}
	return false
}
