package tests

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	bolt "go.etcd.io/bbolt"

	"prototyper/store"
	"prototyper/store/storetest"
)

func TestFaultFullDiskIsAClearErrorAndTheDatabaseStillOpens(t *testing.T) {
	disk := storetest.MountSmallDisk(t, "1m")
	path := filepath.Join(disk, "prototyper.db")
	// A file that takes room now and is deleted later, to give the disk space back.
	filler := filepath.Join(disk, "filler")
	if err := os.WriteFile(filler, make([]byte, 256<<10), 0o600); err != nil {
		t.Fatal(err)
	}

	db, err := store.Open(path, store.Options{})
	if err != nil {
		t.Fatal(err)
	}
	closed := false
	t.Cleanup(func() {
		if !closed {
			db.Close()
		}
	})
	chat, err := db.CreateChat(store.Chat{Title: "fills the disk"})
	if err != nil {
		t.Fatal(err)
	}
	big := strings.Repeat("x", 32<<10)
	var kept int
	var writeErr error
	for range 200 {
		if _, writeErr = db.AppendMessage(chat.ID, store.Message{Role: store.RoleUser, Content: big}); writeErr != nil {
			break
		}
		kept++
	}
	if writeErr == nil {
		t.Fatalf("appended %d×32 KiB to a 1 MiB disk without an error", kept)
	}
	t.Logf("after %d messages: %v", kept, writeErr)

	// The caller can tell what happened, and the user reads what to do.
	if !errors.Is(writeErr, store.ErrWrite) {
		t.Errorf("err = %v (%T), want one matching store.ErrWrite", writeErr, writeErr)
	}
	if msg := writeErr.Error(); !strings.Contains(msg, path) {
		t.Errorf("the error does not name the file: %q", msg)
	}
	if !errors.Is(writeErr, syscall.ENOSPC) {
		t.Errorf("err = %v, want one matching syscall.ENOSPC", writeErr)
	}
	if msg := writeErr.Error(); !strings.Contains(msg, "free some disk space") || strings.Count(msg, path) != 1 {
		t.Errorf("the error should name the file once and say to free space: %q", msg)
	}

	// The failed write left nothing behind, and the handle still reads.
	faultCheckMessages(t, db, chat.ID, kept, big)
	if c, _ := db.Chat(chat.ID); c.MessageCount != kept {
		t.Errorf("chat counts %d messages, %d were saved", c.MessageCount, kept)
	}
	db.Close()
	closed = true

	// The file still opens, in place, on the full disk, and is consistent.
	checkBoltFile(t, path, "after the failed write")
	db, err = store.Open(path, store.Options{})
	if err != nil {
		t.Fatalf("the database does not open after the failed write: %v", err)
	}
	closed = false
	faultCheckMessages(t, db, chat.ID, kept, big)

	// Once there is room again, writing works again.
	if err := os.Remove(filler); err != nil {
		t.Fatal(err)
	}
	if _, err := db.AppendMessage(chat.ID, store.Message{Role: store.RoleUser, Content: "after"}); err != nil {
		t.Fatalf("append after freeing space: %v", err)
	}
	faultCheckMessages(t, db, chat.ID, kept+1, big)
	if err := db.Check(); err != nil {
		t.Errorf("Check after recovering from the full disk: %v", err)
	}
}

// faultCheckMessages checks that a chat holds exactly n messages, whole.
func faultCheckMessages(t *testing.T, db *store.DB, chatID string, n int, content string) {
	t.Helper()
	msgs, err := db.Messages(chatID)
	if err != nil {
		t.Fatalf("reading the chat: %v", err)
	}
	if len(msgs) != n {
		t.Fatalf("the chat holds %d messages, want %d", len(msgs), n)
	}
	for i, m := range msgs {
		if m.Content != content && !(i == n-1 && m.Content == "after") {
			t.Fatalf("message %d is damaged (%d bytes)", i, len(m.Content))
		}
	}
}

// checkBoltFile opens the database at path read-only with bbolt itself, beneath the store, and
// reports every inconsistency its check finds; when says at which moment, in the messages.
func checkBoltFile(t *testing.T, path, when string) {
	t.Helper()
	raw, err := bolt.Open(path, 0o600, &bolt.Options{ReadOnly: true, Timeout: 5 * time.Second})
	if err != nil {
		t.Fatalf("%s: bbolt cannot open the file: %v", when, err)
	}
	defer raw.Close()
	_ = raw.View(func(tx *bolt.Tx) error {
		for err := range tx.Check() {
			t.Errorf("%s: tx.Check: %v", when, err)
		}
		return nil
	})
}
