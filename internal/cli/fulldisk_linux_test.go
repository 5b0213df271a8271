package cli

import (
	"errors"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"prototyper/store"
	"prototyper/store/storetest"
)

// The stream's checkpoint fails on a full disk, then the flush that keeps what arrived fails
// the same way: the loop reports both, and the user reads it once.
func TestFullDiskDuringAStreamIsSaidOnce(t *testing.T) {
	disk := storetest.MountSmallDisk(t, "1m")
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
	storetest.FillDisk(t, disk)

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
