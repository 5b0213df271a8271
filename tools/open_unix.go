//go:build unix

package tools

import "syscall"

// Flags added to every open of an existing path, so that an open never waits:
// a FIFO without a writer (or a reader) would block an ordinary open for ever,
// and a terminal device could become the process's controlling terminal. What
// is opened is then checked with Fstat before a byte is read.
const (
	openFileFlags   = syscall.O_NONBLOCK | syscall.O_NOCTTY
	openFolderFlags = syscall.O_NONBLOCK | syscall.O_DIRECTORY // anything but a folder fails at once
)
