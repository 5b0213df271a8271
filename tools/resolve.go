package tools

import (
	"path/filepath"
	"strings"
)

// Resolve returns the absolute path of rel, a path of the workspace that exists, after its
// links are followed; a path that leads outside the workspace (or is not there) is refused
// with the sentence a user reads. The window opens only what Resolve returns.
func (w *Workspace) Resolve(rel string) (string, error) {
	c, err := cleanFolder(rel)
	if err != nil {
		return "", err
	}
	if _, err := w.root.Stat(c); err != nil {
		return "", w.explain(c, err)
	}
	real, err := filepath.EvalSymlinks(filepath.Join(w.dir, filepath.FromSlash(c)))
	if err != nil {
		return "", w.explain(c, err)
	}
	dir, err := filepath.EvalSymlinks(w.dir)
	if err != nil {
		return "", w.explain(".", err)
	}
	if real != dir && !strings.HasPrefix(real, dir+string(filepath.Separator)) {
		return "", pathErrorf(ErrOutsideWorkspace, c, "%q leads outside the workspace, so it is not opened", c)
	}
	return real, nil
}
