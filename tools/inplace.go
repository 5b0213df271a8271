package tools

import (
	"context"
	"os"
	"path"
)

// inPlaceWrite is a file a restore wrote over in place, or created where nothing was (see
// writebatch.go), not yet synced.
type inPlaceWrite struct {
	w       *Workspace
	rel     string
	dir     string // its folder, relative to the workspace
	f       *os.File
	created bool
}

// writeInPlace writes s over the file at its path, in place, through the folder held open as
// dir: cut to nothing, then its content from the start, then its permission bits when they
// differ. It returns no write, and no error, when the file must be replaced by a temporary
// file instead (openInPlace says when), or when dir could not be opened.
func (w *Workspace) writeInPlace(ctx context.Context, dir *os.File, s PathState) (*inPlaceWrite, error) {
	if dir == nil {
		return nil, nil
	}
	if err := ctx.Err(); err != nil {
		return nil, cancelledf(err, "putting %q back was cancelled", s.Path)
	}
	f, created, ok := openInPlace(dir, path.Base(s.Path), s.Mode)
	if !ok {
		return nil, nil
	}
	ip := &inPlaceWrite{w: w, rel: s.Path, dir: folderOf(s.Path), f: f, created: created}
	if !created {
		if err := f.Truncate(0); err != nil {
			return ip, w.explain(s.Path, err)
		}
	}
	for off := 0; off < len(s.Content); off += writeChunk {
		if _, err := f.Write(s.Content[off:min(off+writeChunk, len(s.Content))]); err != nil {
			return ip, w.explain(s.Path, err)
		}
	}
	fi, err := f.Stat()
	if err == nil && fi.Mode().Perm() != s.Mode.Perm() { // a created file's mode went through the umask
		err = f.Chmod(s.Mode.Perm())
	}
	if err != nil {
		return ip, w.explain(s.Path, err)
	}
	return ip, nil
}

// sync puts the file's content on disk and closes it.
func (ip *inPlaceWrite) sync() error {
	err := ip.f.Sync()
	if cerr := ip.f.Close(); err == nil {
		err = cerr
	}
	ip.f = nil
	if err != nil {
		return ip.w.explain(ip.rel, err)
	}
	return nil
}

// abort closes the file: what was written stays, for the restore's caller to take back.
func (ip *inPlaceWrite) abort() {
	if ip.f != nil {
		ip.f.Close()
		ip.f = nil
	}
}

// folderOf is the folder of a workspace path, "." for one at the top.
func folderOf(rel string) string {
	if dir := path.Dir(rel); dir != "/" {
		return dir
	}
	return "."
}

// openFolderFile opens the folder dir of r, as openFolder does, as a file: the handle an
// in-place write opens its file through, and syncs the folder with.
func openFolderFile(r *os.Root, dir string) (*os.File, error) {
	parent, err := openFolder(r, dir)
	if err != nil {
		return nil, err
	}
	defer parent.Close()
	return parent.Open(".")
}
