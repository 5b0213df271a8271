//go:build !linux

package storetest

import "testing"

// MountSmallDisk skips the test: a small disk that really fills up is a tmpfs, which only
// Linux mounts.
func MountSmallDisk(t testing.TB, size string) string {
	t.Helper()
	t.Skip("a disk that fills up is a small tmpfs, which needs Linux")
	return ""
}
