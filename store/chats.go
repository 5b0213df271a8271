package store

import (
	"encoding/json"
	"strings"
	"unicode/utf8"

	bolt "go.etcd.io/bbolt"
)

// titleRunes is how much of the first user message becomes an untitled chat's title.
const titleRunes = 60

// CreateChat stores a new chat. ID (when empty), CreatedAt and UpdatedAt are set; an empty
// Title is filled from the first user message later.
func (db *DB) CreateChat(c Chat) (Chat, error) {
	now := db.now()
	if c.ID == "" {
		c.ID = newID(now)
	}
	c.CreatedAt, c.UpdatedAt, c.MessageCount = now, now, 0
	err := db.update("create chat", func(tx *bolt.Tx) error { return db.createChatTx(tx, &c) })
	return c, err
}

// createChatTx stores the new chat c (its ID and times set) with its buckets.
func (db *DB) createChatTx(tx *bolt.Tx, c *Chat) error {
	if tx.Bucket(bucketChats).Get([]byte(c.ID)) != nil {
		return &existsError{kind: "chat", id: c.ID}
	}
	cb, err := tx.Bucket(bucketChat).CreateBucket([]byte(c.ID))
	if err != nil {
		return err
	}
	for _, name := range [][]byte{bucketMessages, bucketTools, bucketToolIndex, bucketChatRuns} {
		if _, err := cb.CreateBucket(name); err != nil {
			return err
		}
	}
	return saveChat(tx, nil, c)
}

// Chat returns one chat's summary.
func (db *DB) Chat(id string) (Chat, error) {
	var c Chat
	err := db.view(func(tx *bolt.Tx) (err error) {
		c, err = loadChat(tx, id)
		return err
	})
	return c, err
}

// ListChats returns every chat, most recently updated first, without reading any message.
func (db *DB) ListChats() ([]Chat, error) {
	var chats []Chat
	err := db.view(func(tx *bolt.Tx) error {
		byID := tx.Bucket(bucketChats)
		cur := tx.Bucket(bucketChatsByUpdated).Cursor()
		for k, _ := cur.Last(); k != nil; k, _ = cur.Prev() {
			var c Chat
			if err := json.Unmarshal(byID.Get(k[8:]), &c); err != nil {
				return err
			}
			chats = append(chats, c)
		}
		return nil
	})
	return chats, err
}

// RenameChat sets a chat's title.
func (db *DB) RenameChat(id, title string) (Chat, error) {
	return db.UpdateChat(id, func(c *Chat) { c.Title = title })
}

// UpdateChat lets edit change a chat's Title, Model or Workspace (other fields are kept) and
// marks the chat updated.
func (db *DB) UpdateChat(id string, edit func(*Chat)) (Chat, error) {
	var c Chat
	err := db.update("update chat", func(tx *bolt.Tx) error {
		old, err := loadChat(tx, id)
		if err != nil {
			return err
		}
		c = old
		edit(&c)
		c.ID, c.CreatedAt, c.MessageCount = old.ID, old.CreatedAt, old.MessageCount
		c.UpdatedAt = db.now()
		return saveChat(tx, &old, &c)
	})
	return c, err
}

// DeleteChat removes a chat with its messages, tool-call records and runs.
func (db *DB) DeleteChat(id string) error {
	return db.update("delete chat", func(tx *bolt.Tx) error {
		c, err := loadChat(tx, id)
		if err != nil {
			return err
		}
		if cb := chatBucket(tx, id); cb != nil {
			if runs := cb.Bucket(bucketChatRuns); runs != nil {
				if err := runs.ForEach(func(runID, _ []byte) error {
					if err := tx.Bucket(bucketRuns).Delete(runID); err != nil {
						return err
					}
					return tx.Bucket(bucketLiveRuns).Delete(runID)
				}); err != nil {
					return err
				}
			}
			if err := tx.Bucket(bucketChat).DeleteBucket([]byte(id)); err != nil {
				return err
			}
		}
		if err := unindexChat(tx, id); err != nil {
			return err
		}
		if err := tx.Bucket(bucketChatsByUpdated).Delete(updatedKey(c.UpdatedAt, c.ID)); err != nil {
			return err
		}
		if err := editDrafts(tx, func(d map[string]string) { delete(d, id) }); err != nil {
			return err
		}
		if err := editQueued(tx, func(q map[string][]string) { delete(q, id) }); err != nil {
			return err
		}
		if err := forgetUnsentImages(tx, id); err != nil {
			return err
		}
		return tx.Bucket(bucketChats).Delete([]byte(id))
	})
}

func chatBucket(tx *bolt.Tx, chatID string) *bolt.Bucket {
	return tx.Bucket(bucketChat).Bucket([]byte(chatID))
}

func loadChat(tx *bolt.Tx, id string) (Chat, error) {
	var c Chat
	raw := tx.Bucket(bucketChats).Get([]byte(id))
	if raw == nil {
		return c, &NotFoundError{Kind: "chat", ID: id}
	}
	err := json.Unmarshal(raw, &c)
	return c, err
}

// saveChat writes c and moves its entry in the newest-first index (old is nil for a new chat).
func saveChat(tx *bolt.Tx, old, c *Chat) error {
	idx := tx.Bucket(bucketChatsByUpdated)
	if old != nil {
		if err := idx.Delete(updatedKey(old.UpdatedAt, old.ID)); err != nil {
			return err
		}
	}
	if err := idx.Put(updatedKey(c.UpdatedAt, c.ID), nil); err != nil {
		return err
	}
	if err := stampIndex(tx, old, c); err != nil {
		return err
	}
	return putJSON(tx.Bucket(bucketChats), []byte(c.ID), c)
}

// recountChat records messages shown or put aside as a version of the history: the count
// changes, updatedAt does not, since nothing new was written in the chat (the list of chats is
// ordered by it: only a new message brings a chat to the top). The search index is kept in the
// same transaction, so its stamp stays current.
func recountChat(tx *bolt.Tx, chatID string, added int) error {
	old, err := loadChat(tx, chatID)
	if err != nil {
		return err
	}
	c := old
	c.MessageCount += added
	return saveChat(tx, &old, &c)
}

// touchChat records activity in a chat: updated now, count grown by added, titled from the
// first user message if it has no title.
func (db *DB) touchChat(tx *bolt.Tx, chatID string, added int, m *Message) error {
	old, err := loadChat(tx, chatID)
	if err != nil {
		return err
	}
	c := old
	c.UpdatedAt = db.now()
	c.MessageCount += added
	if c.Title == "" && m != nil && m.Role == RoleUser {
		c.Title = titleFrom(m.Content)
	}
	return saveChat(tx, &old, &c)
}

// titleFrom is the first line of text, cut to titleRunes.
func titleFrom(text string) string {
	text = strings.TrimSpace(text)
	if i := strings.IndexByte(text, '\n'); i >= 0 {
		text = strings.TrimSpace(text[:i])
	}
	if utf8.RuneCountInString(text) <= titleRunes {
		return text
	}
	r := []rune(text)
	return strings.TrimSpace(string(r[:titleRunes-1])) + "…"
}

// appendDecoded decodes every value of b, in key order, onto out.
func appendDecoded[T any](b *bolt.Bucket, out *[]T) error {
	return b.ForEach(func(_, v []byte) error {
		var x T
		if err := json.Unmarshal(v, &x); err != nil {
			return err
		}
		*out = append(*out, x)
		return nil
	})
}

func putJSON(b *bolt.Bucket, key []byte, v any) error {
	raw, err := json.Marshal(v)
	if err != nil {
		return err
	}
	return b.Put(key, raw)
}

type existsError struct{ kind, id string }

func (e *existsError) Error() string { return e.kind + " " + e.id + " already exists" }
