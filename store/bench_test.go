package store

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	bolt "go.etcd.io/bbolt"
)

// benchMessage is a typical chat message: a paragraph of text.
func benchMessage(i int) Message {
	role := RoleUser
	if i%2 == 1 {
		role = RoleAssistant
	}
	return Message{Role: role, Content: fmt.Sprintf("message %d: ", i) + strings.Repeat("lorem ipsum dolor sit amet ", 20), Complete: true}
}

// seedChat fills a new chat with n messages in one transaction (setup, not measured).
func seedChat(tb testing.TB, db *DB, n int) Chat {
	tb.Helper()
	c := mustChat(tb, db, Chat{Title: "bench"})
	err := db.update("seed", func(tx *bolt.Tx) error {
		msgs, err := messagesBucket(tx, c.ID)
		if err != nil {
			return err
		}
		now := db.now()
		for i := range n {
			seq, _ := msgs.NextSequence()
			m := benchMessage(i)
			m.ID, m.ChatID, m.CreatedAt, m.UpdatedAt = messageID(c.ID, seq), c.ID, now, now
			if err := putJSON(msgs, seqKey(seq), &m); err != nil {
				return err
			}
		}
		return db.touchChat(tx, c.ID, n, nil)
	})
	if err != nil {
		tb.Fatal(err)
	}
	return c
}

// BenchmarkAppendMessage appends one message to a chat of 10 and of 10,000 messages: with
// bbolt (the cost must not grow with the chat) and the way the Tauri app did it, rewriting
// the whole chat as one JSON file with fsync.
func BenchmarkAppendMessage(b *testing.B) {
	for _, size := range []int{10, 10_000} {
		b.Run(fmt.Sprintf("chat=%d/bbolt", size), func(b *testing.B) {
			db, _ := openTestDB(b, nil)
			c := seedChat(b, db, size)
			m := benchMessage(size)
			b.ReportAllocs()
			b.ResetTimer()
			for b.Loop() {
				if _, err := db.AppendMessage(c.ID, m); err != nil {
					b.Fatal(err)
				}
			}
		})
		b.Run(fmt.Sprintf("chat=%d/json-rewrite", size), func(b *testing.B) {
			path := filepath.Join(b.TempDir(), "chat.json")
			chat := struct {
				Chat     Chat      `json:"chat"`
				Messages []Message `json:"messages"`
			}{Chat: Chat{ID: "c", Title: "bench"}}
			for i := range size {
				chat.Messages = append(chat.Messages, benchMessage(i))
			}
			m := benchMessage(size)
			b.ReportAllocs()
			b.ResetTimer()
			for b.Loop() {
				chat.Messages = append(chat.Messages, m)
				if err := writeJSONFileSynced(path, &chat); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// writeJSONFileSynced rewrites path with v and fsyncs it, as the Tauri app saved a chat.
func writeJSONFileSynced(path string, v any) error {
	raw, err := json.Marshal(v)
	if err != nil {
		return err
	}
	f, err := os.Create(path)
	if err != nil {
		return err
	}
	if _, err := f.Write(raw); err != nil {
		f.Close()
		return err
	}
	if err := f.Sync(); err != nil {
		f.Close()
		return err
	}
	return f.Close()
}

// BenchmarkListChats lists 1,000 chats of 20 messages each.
func BenchmarkListChats(b *testing.B) {
	db, _ := openTestDB(b, nil)
	for range 1000 {
		seedChat(b, db, 20)
	}
	b.ReportAllocs()
	b.ResetTimer()
	for b.Loop() {
		chats, err := db.ListChats()
		if err != nil || len(chats) != 1000 {
			b.Fatal(len(chats), err)
		}
	}
}

// BenchmarkLoadChat reads all the messages of a 10,000-message chat.
func BenchmarkLoadChat(b *testing.B) {
	benchRead(b, 10_000, func(db *DB, chatID string) ([]Message, error) { return db.Messages(chatID) })
}

// BenchmarkLoadRecentMessages reads the last 100 messages of a 10,000-message chat.
func BenchmarkLoadRecentMessages(b *testing.B) {
	benchRead(b, 100, func(db *DB, chatID string) ([]Message, error) { return db.RecentMessages(chatID, 100) })
}

// benchRead measures read on a chat of 10,000 messages, which must return want of them.
func benchRead(b *testing.B, want int, read func(db *DB, chatID string) ([]Message, error)) {
	db, _ := openTestDB(b, nil)
	c := seedChat(b, db, 10_000)
	b.ReportAllocs()
	b.ResetTimer()
	for b.Loop() {
		msgs, err := read(db, c.ID)
		if err != nil || len(msgs) != want {
			b.Fatal(len(msgs), err)
		}
	}
}
