//go:build !linux

package tools

import "os"

// openListing opens a folder of the search for its entries; its files are opened through
// root (no descriptor: -1).
func openListing(root *os.Root) (*os.File, int, error) {
	f, err := root.OpenFile(".", os.O_RDONLY|openFolderFlags, 0)
	return f, -1, err
}

// readAt is not used where openListing gives no descriptor.
func (s *search) readAt(int, string, []byte) ([]byte, bool, error) {
	return nil, false, errNotSearched
}
