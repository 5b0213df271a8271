package store_test

import (
	"errors"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"prototyper/store"
	"prototyper/store/storetest"
)

func TestCreatingADatabaseOnAFullDiskSaysSoOnce(t *testing.T) {
	disk := storetest.MountSmallDisk(t, "256k")
	storetest.FillDisk(t, disk)
	path := filepath.Join(disk, "prototyper.db")
	_, err := store.Open(path, store.Options{})
	if !errors.Is(err, store.ErrWrite) || !errors.Is(err, syscall.ENOSPC) {
		t.Fatalf("err = %v, want one matching ErrWrite and ENOSPC", err)
	}
	if msg := err.Error(); strings.Count(msg, path) != 1 || !strings.Contains(msg, "free some disk space") {
		t.Errorf("the message should name the file once and say to free space: %q", msg)
	}
}
