package storetest

import (
	"os"
	"path/filepath"
	"testing"
)

// FillDisk writes a file into dir until its disk has no room left.
func FillDisk(t testing.TB, dir string) {
	t.Helper()
	f, err := os.Create(filepath.Join(dir, "filler"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	block := make([]byte, 4096)
	for {
		if _, err := f.Write(block); err != nil {
			return
		}
	}
}
