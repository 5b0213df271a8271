//go:build unix

package tools

import (
	"io/fs"
	"os"

	"golang.org/x/sys/unix"
)

// openInPlace opens the file base of the folder held open as dir for a restore to write over
// it in place, or creates it there when nothing is there; ok is false when the restore must
// write a temporary file and rename it instead (which also reports what stands in the way):
// base is not a regular file (a link, a folder, a FIFO, a device), has more than one name (a
// write in place would change the others too), belongs to another user (a rename makes the
// restored file the app's, as any tool's write does), or cannot be opened for writing (its
// mode, a program running it). The checks are made on the open descriptor, after an open that
// does not follow a link, so that a link put in its place meanwhile is never written through.
func openInPlace(dir *os.File, base string, perm fs.FileMode) (f *os.File, created, ok bool) {
	dfd := int(dir.Fd())
	var st unix.Stat_t
	err := unix.Fstatat(dfd, base, &st, unix.AT_SYMLINK_NOFOLLOW)
	if err == unix.ENOENT {
		fd, err := unix.Openat(dfd, base, unix.O_WRONLY|unix.O_CREAT|unix.O_EXCL|unix.O_NOFOLLOW|unix.O_CLOEXEC, uint32(perm.Perm()))
		if err != nil {
			return nil, false, false
		}
		return os.NewFile(uintptr(fd), base), true, true
	}
	if err != nil || !writableInPlace(&st) {
		return nil, false, false // checked first so that a FIFO or a device is never opened
	}
	fd, err := unix.Openat(dfd, base, unix.O_WRONLY|unix.O_NOFOLLOW|unix.O_NONBLOCK|unix.O_NOCTTY|unix.O_CLOEXEC, 0)
	if err != nil {
		return nil, false, false
	}
	if unix.Fstat(fd, &st) != nil || !writableInPlace(&st) || unix.SetNonblock(fd, false) != nil {
		unix.Close(fd)
		return nil, false, false
	}
	return os.NewFile(uintptr(fd), base), false, true
}

// writableInPlace reports whether st is a regular file of this process's user with one name.
func writableInPlace(st *unix.Stat_t) bool {
	return st.Mode&unix.S_IFMT == unix.S_IFREG && st.Nlink == 1 && int(st.Uid) == os.Geteuid()
}
