//go:build unix

package tools

import (
	"errors"
	"os"
	"syscall"
)

// links returns the number of hard links of a file.
func links(fi os.FileInfo) uint64 {
	if st, ok := fi.Sys().(*syscall.Stat_t); ok {
		return uint64(st.Nlink)
	}
	return 1
}

func isNotEmpty(err error) bool { return errors.Is(err, syscall.ENOTEMPTY) }
