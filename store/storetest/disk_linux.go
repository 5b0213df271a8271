package storetest

import (
	"os"
	"path/filepath"
	"syscall"
	"testing"
)

// MountSmallDisk mounts a tmpfs of size bytes (a disk that really fills up, even for root,
// whom permission bits do not stop) and unmounts it at the end of the test. It skips the
// test without the rights to mount.
func MountSmallDisk(t testing.TB, size string) string {
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
