package tools

import (
	"os"
	"syscall"

	"golang.org/x/sys/unix"
)

// openListing opens a folder of the search for its entries and its files. The descriptor is
// a copy of one opened through root, wrapped as a plain file: a file opened in an [os.Root]
// lstats every entry it lists, which the search does not need (the entry's type comes with
// its name), and its files are opened by name from this descriptor directly (readAt).
func openListing(root *os.Root) (*os.File, int, error) {
	f, err := root.OpenFile(".", os.O_RDONLY|openFolderFlags, 0)
	if err != nil {
		return nil, -1, err
	}
	defer f.Close()
	rc, err := f.SyscallConn()
	if err != nil {
		return nil, -1, err
	}
	fd, dupErr := -1, error(nil)
	if err := rc.Control(func(raw uintptr) { fd, dupErr = unix.FcntlInt(raw, unix.F_DUPFD_CLOEXEC, 0) }); err != nil {
		return nil, -1, err
	}
	if dupErr != nil {
		return nil, -1, dupErr
	}
	return os.NewFile(uintptr(fd), "."), fd, nil
}

// readAt opens the file name of the folder dirfd and reads it (see readOpen). The name is one
// an entry of that folder gave, so it holds no slash, and O_NOFOLLOW refuses a link put in
// its place: nothing outside the folder is opened. As elsewhere, a special file is never
// waited on (O_NONBLOCK) and a hard-linked one is not read.
func (s *search) readAt(dirfd int, name string, buf []byte) ([]byte, bool, error) {
	fd, err := unix.Openat(dirfd, name, unix.O_RDONLY|unix.O_NONBLOCK|unix.O_NOCTTY|unix.O_NOFOLLOW|unix.O_CLOEXEC, 0)
	if err != nil {
		return buf, false, errNotSearched
	}
	defer unix.Close(fd)
	var st unix.Stat_t
	if err := unix.Fstat(fd, &st); err != nil || st.Mode&unix.S_IFMT != unix.S_IFREG || st.Nlink > 1 {
		return buf, false, errNotSearched
	}
	for _, f := range s.app.files {
		if app, ok := f.fi.Sys().(*syscall.Stat_t); ok && uint64(app.Dev) == uint64(st.Dev) && uint64(app.Ino) == uint64(st.Ino) {
			return buf, false, errNotSearched
		}
	}
	return s.readOpen(func(b []byte) (int, error) {
		for {
			n, err := unix.Read(fd, b)
			if err != unix.EINTR {
				return n, err
			}
		}
	}, st.Size, buf)
}
