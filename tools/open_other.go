//go:build !unix

package tools

// Without FIFOs that block an open, no extra flags are needed; what is
// opened is still checked before it is read.
const (
	openFileFlags   = 0
	openFolderFlags = 0
)
