package cli

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"prototyper/store"
)

// mountFullDisk mounts a small tmpfs (a disk that really fills up, even for root) and
// unmounts it at the end of the test; it skips without the rights to mount.
func mountFullDisk(t *testing.T) string {
	t.Helper()
	dir := filepath.Join(t.TempDir(), "disk")
	if err := os.Mkdir(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := syscall.Mount("tmpfs", dir, "tmpfs", 0, "size=1m"); err != nil {
		t.Skipf("cannot mount a small tmpfs to fill up (%v): this test needs root with CAP_SYS_ADMIN", err)
	}
	t.Cleanup(func() {
		if err := syscall.Unmount(dir, 0); err != nil {
			_ = syscall.Unmount(dir, syscall.MNT_DETACH)
		}
	})
	return dir
}

// The stream's checkpoint fails on a full disk, then the flush that keeps what arrived fails
// the same way: the loop reports both, and the user reads it once.
func TestFullDiskDuringAStreamIsSaidOnce(t *testing.T) {
	disk := mountFullDisk(t)
	path := filepath.Join(disk, "prototyper.db")
	clock := time.Unix(0, 0)
	db, err := store.Open(path, store.Options{Now: func() time.Time { return clock }})
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	chat, _ := db.CreateChat(store.Chat{})
	cp, err := db.NewCheckpointer(chat.ID, store.Message{})
	if err != nil {
		t.Fatal(err)
	}
	filler, _ := os.Create(filepath.Join(disk, "filler"))
	for {
		if _, err := filler.Write(make([]byte, 4096)); err != nil {
			break
		}
	}
	filler.Close()

	clock = clock.Add(2 * time.Second) // a checkpoint is due
	streamErr := cp.AddText(strings.Repeat("x", 100_000))
	flushErr := cp.Flush()
	if !errors.Is(streamErr, store.ErrWrite) || !errors.Is(flushErr, store.ErrWrite) {
		t.Fatalf("the disk did not fill: %v / %v", streamErr, flushErr)
	}
	line := errorLine(errors.Join(streamErr, flushErr))
	if strings.Count(line, path) != 1 || strings.Count(line, "free some disk space") != 1 || strings.Contains(line, "\n") {
		t.Errorf("the full disk should be said once, in one line: %q", line)
	}
}
