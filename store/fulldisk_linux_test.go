package store

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
)

// mountSmallDisk mounts a tmpfs of size bytes, a disk that really fills up, and unmounts it
// at the end of the test; it skips without the rights to mount.
func mountSmallDisk(t *testing.T, size string) string {
	t.Helper()
	dir := filepath.Join(t.TempDir(), "disk")
	if err := os.Mkdir(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := syscall.Mount("tmpfs", dir, "tmpfs", 0, "size="+size); err != nil {
		t.Skipf("cannot mount a small tmpfs to fill up (%v): this test needs root with CAP_SYS_ADMIN", err)
	}
	t.Cleanup(func() {
		if err := syscall.Unmount(dir, 0); err != nil {
			_ = syscall.Unmount(dir, syscall.MNT_DETACH)
		}
	})
	return dir
}

// fillDisk writes a file until the disk has no room left.
func fillDisk(t *testing.T, dir string) {
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

func TestCreatingADatabaseOnAFullDiskSaysSoOnce(t *testing.T) {
	disk := mountSmallDisk(t, "256k")
	fillDisk(t, disk)
	path := filepath.Join(disk, "prototyper.db")
	_, err := Open(path, Options{})
	if !errors.Is(err, ErrWrite) || !errors.Is(err, syscall.ENOSPC) {
		t.Fatalf("err = %v, want one matching ErrWrite and ENOSPC", err)
	}
	if msg := err.Error(); strings.Count(msg, path) != 1 || !strings.Contains(msg, "free some disk space") {
		t.Errorf("the message should name the file once and say to free space: %q", msg)
	}
}
