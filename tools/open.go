package tools

import (
	"context"
	"errors"
	"io"
	"os"
	"path"
)

// Opening a FIFO blocks until the other end opens it, and nothing — not a
// cancelled context, not a signal — ends that wait. So every existing path is
// checked before it is opened (Stat, through the workspace's os.Root), opened
// with openFileFlags or openFolderFlags so that the open itself cannot wait,
// and checked again on the open file, so that a FIFO, socket or device put in
// its place meanwhile is refused before a byte is read.

// openRegular opens name in r for reading when it is a regular file (links
// inside r are followed). check, when set, sees the file before it is opened
// and again once it is open, and may refuse it. Errors about the kind of file
// are [*PathError]s about rel; others come from the os package.
func openRegular(r *os.Root, name, rel string, check func(os.FileInfo) error) (*os.File, os.FileInfo, error) {
	vet := func(fi os.FileInfo) error {
		if check != nil {
			if err := check(fi); err != nil {
				return err
			}
		}
		return plainFile(rel, fi)
	}
	fi, err := r.Stat(name)
	if err != nil {
		return nil, nil, err
	}
	if err := vet(fi); err != nil {
		return nil, nil, err
	}
	f, err := r.OpenFile(name, os.O_RDONLY|openFileFlags, 0)
	if err != nil {
		return nil, nil, err
	}
	if fi, err = f.Stat(); err == nil {
		err = vet(fi)
	}
	if err != nil {
		f.Close()
		return nil, nil, err
	}
	return f, fi, nil
}

// errOverLimit is returned by readLimited for a file larger than its limit.
var errOverLimit = errors.New("over the limit")

// readChunk is how much is read between two looks at the context.
const readChunk = 1 << 20

// readLimited reads the regular file name in r whole, when it holds at most
// limit bytes; a larger file (also one that grew since it was measured)
// gives errOverLimit.
func readLimited(ctx context.Context, r *os.Root, name, rel string, limit int64) ([]byte, error) {
	f, fi, err := openRegular(r, name, rel, nil)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	if fi.Size() > limit {
		return nil, errOverLimit
	}
	buf := make([]byte, 0, fi.Size()+1)
	lr := io.LimitReader(f, limit+1)
	for {
		if err := ctx.Err(); err != nil {
			return nil, cancelledf(err, "reading %q was cancelled", rel)
		}
		if len(buf) == cap(buf) {
			buf = append(buf, 0)[:len(buf)]
		}
		n, err := lr.Read(buf[len(buf):min(cap(buf), len(buf)+readChunk)])
		buf = buf[:len(buf)+n]
		if int64(len(buf)) > limit {
			return nil, errOverLimit
		}
		if err == io.EOF {
			return buf, nil
		}
		if err != nil {
			return nil, err
		}
	}
}

// openFolder opens the folder dir of r as a root of its own. It names the
// folder as "dir/.", so that dir is opened as a path component (with
// O_DIRECTORY, which fails at once on a FIFO) rather than as a final name,
// which os.Root opens without it and which would wait on a FIFO for ever.
func openFolder(r *os.Root, dir string) (*os.Root, error) {
	if dir = path.Clean(dir); dir != "." {
		dir += "/."
	}
	return r.OpenRoot(dir)
}
