package store

import (
	"fmt"
	"testing"

	bolt "go.etcd.io/bbolt"
)

// seedChats fills the store with chats of perChat messages each (setup, not measured):
// many chats a transaction, without fsync, through the same writes AppendMessage makes.
func seedChats(tb testing.TB, db *DB, chats, perChat int) {
	tb.Helper()
	db.bolt.NoSync = true
	defer func() { db.bolt.NoSync = false }()
	const chatsPerTx = 100
	for done := 0; done < chats; done += chatsPerTx {
		err := db.update("seed", func(tx *bolt.Tx) error {
			for i := done; i < min(chats, done+chatsPerTx); i++ {
				c := Chat{ID: fmt.Sprintf("chat%07d", i), Title: fmt.Sprintf("chat %d", i)}
				if err := db.createChatTx(tx, &c); err != nil {
					return err
				}
				for j := range perChat {
					if _, err := db.appendMessageTx(tx, c.ID, benchMessage(j)); err != nil {
						return err
					}
				}
			}
			return nil
		})
		if err != nil {
			tb.Fatal(err)
		}
	}
	if err := db.bolt.Sync(); err != nil {
		tb.Fatal(err)
	}
}

// BenchmarkSearchChatsBySize looks for words found in no chat among 100, 1,000 and 10,000
// chats of 50 messages: the time must grow at most with the chats (< 100 ms at 1,000).
func BenchmarkSearchChatsBySize(b *testing.B) {
	for _, chats := range []int{100, 1000, 10_000} {
		b.Run(fmt.Sprintf("chats=%d", chats), func(b *testing.B) {
			db, _ := openTestDB(b, nil)
			seedChats(b, db, chats, 50)
			b.ReportAllocs()
			b.ResetTimer()
			for b.Loop() {
				hits, err := db.SearchChats("never found anywhere", 0)
				if err != nil || len(hits) != 0 {
					b.Fatal(hits, err)
				}
			}
		})
	}
}
