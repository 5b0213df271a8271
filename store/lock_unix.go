//go:build unix

package store

import (
	"os"
	"syscall"
)

// releaseLock drops the flock bbolt took on f. Closing f alone would not: a mapping of the
// file keeps its open file description, and so the lock, alive.
func releaseLock(f *os.File) { _ = syscall.Flock(int(f.Fd()), syscall.LOCK_UN) }
