package store

import (
	"path/filepath"
	"sync"
	"testing"
	"time"
)

// testClock is an injectable clock that moves only when told.
type testClock struct {
	mu sync.Mutex
	t  time.Time
}

func newTestClock() *testClock {
	return &testClock{t: time.Date(2025, 1, 2, 3, 4, 5, 0, time.UTC)}
}

func (c *testClock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.t
}

func (c *testClock) Advance(d time.Duration) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.t = c.t.Add(d)
}

// openTestDB opens a fresh database in a temporary folder, closed at the end of the test.
func openTestDB(tb testing.TB, clock *testClock) (*DB, string) {
	tb.Helper()
	path := filepath.Join(tb.TempDir(), "sub", "prototyper.db")
	opts := Options{}
	if clock != nil {
		opts.Now = clock.Now
	}
	db, err := Open(path, opts)
	if err != nil {
		tb.Fatalf("Open: %v", err)
	}
	tb.Cleanup(func() { _ = db.Close() })
	return db, path
}

// reopen opens the database at path again (after a Close, as the next start of the app
// does), closed at the end of the test.
func reopen(tb testing.TB, path string, opts Options) *DB {
	tb.Helper()
	db, err := Open(path, opts)
	if err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(func() { _ = db.Close() })
	return db
}

func mustChat(tb testing.TB, db *DB, c Chat) Chat {
	tb.Helper()
	c, err := db.CreateChat(c)
	if err != nil {
		tb.Fatalf("CreateChat: %v", err)
	}
	return c
}

func mustSaver(tb testing.TB, db *DB, chatID string, m Message) *MessageSaver {
	tb.Helper()
	cp, err := db.NewMessageSaver(chatID, m)
	if err != nil {
		tb.Fatalf("NewMessageSaver: %v", err)
	}
	return cp
}

func mustAppend(tb testing.TB, db *DB, chatID string, m Message) Message {
	tb.Helper()
	m, err := db.AppendMessage(chatID, m)
	if err != nil {
		tb.Fatalf("AppendMessage: %v", err)
	}
	return m
}
