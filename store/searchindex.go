package store

import (
	"bytes"
	"encoding/binary"
	"encoding/json"
	"errors"
	"strings"
	"time"

	bolt "go.etcd.io/bbolt"
	berrors "go.etcd.io/bbolt/errors"
)

// The search index holds, for every chat, the lower-cased text of each shown user and
// assistant message, so that [DB.SearchChats] compares bytes where they lie instead of
// decoding and lower-casing every message. It is derived data: written in the same
// transaction as the messages it mirrors, read only by search, and rebuilt from the messages
// whenever it may be behind them; the messages never depend on it.
//
// A chat's index is stamped with the chat's updatedAt. Every write of a chat's messages moves
// its updatedAt (touchChat; a version shown or put aside, which writes nothing new, keeps it,
// its index kept in the same transaction), and saveChat moves the stamp along only when it
// matched the old updatedAt, i.e. when the index was whole before the write. So a stamp that differs from its
// chat's updatedAt means an index that may be behind: a file written by a build that keeps no
// index, an index lost to damage, or one never built. Search reads such a chat's messages
// themselves, and the next writable [Open] re-indexes it.

// bucketSearchIndex is the index's top-level bucket: chat id → bucket of seq → text.
var bucketSearchIndex = []byte("searchIndex")

// keyIndexStamp is the key of a chat index's stamp: sequence 0, which no message has.
var keyIndexStamp = make([]byte, 8)

// keyIndexTitle is the key of the chat's lower-cased title, after a "t" (a value is never
// empty), kept with the stamp: search reads no chat's record but those it finds. It is not
// 8 bytes long, so no message's key is ever it.
var keyIndexTitle = []byte("title")

// keyIndexTrigrams is the key of a chat's trigram filter: a bit for each (hashed) run of
// three bytes its indexed texts hold. Words whose runs are not all there are in none of the
// chat's messages, which search then does not read. Bits are only ever added (a message put
// aside or edited leaves its own): the filter may let a chat through for nothing, never keep
// one out. A rebuild at open makes it exact again.
var keyIndexTrigrams = []byte("trigram")

// trigramBits is the size of a chat's filter, in bits (512 bytes). A chat holds a few
// thousand distinct runs, so the few runs of a query are rarely all set by chance.
const trigramBits = 4096

// trigramBit is the bit of the run of three bytes a, b, c.
func trigramBit(a, b, c byte) uint32 {
	return (uint32(a)<<16 | uint32(b)<<8 | uint32(c)) * 0x9E3779B1 >> (32 - 12)
}

// addTrigrams sets in filter (trigramBits/8 bytes) the bits of every run of text.
func addTrigrams(filter, text []byte) {
	for i := 0; i+2 < len(text); i++ {
		bit := trigramBit(text[i], text[i+1], text[i+2])
		filter[bit/8] |= 1 << (bit % 8)
	}
}

// trigramsOf are the bits of the runs of a query (none for a query shorter than three bytes).
func trigramsOf(needle []byte) []uint32 {
	var bits []uint32
	for i := 0; i+2 < len(needle); i++ {
		bits = append(bits, trigramBit(needle[i], needle[i+1], needle[i+2]))
	}
	return bits
}

// mayHold reports whether a chat's filter lets the query's runs through (true without one).
func mayHold(filter []byte, bits []uint32) bool {
	if len(filter) != trigramBits/8 {
		return true
	}
	for _, bit := range bits {
		if filter[bit/8]&(1<<(bit%8)) == 0 {
			return false
		}
	}
	return true
}

// addToFilter adds text's runs to a chat's filter.
func addToFilter(sub *bolt.Bucket, text []byte) error {
	filter := make([]byte, trigramBits/8)
	if old := sub.Get(keyIndexTrigrams); len(old) == len(filter) {
		copy(filter, old)
	}
	addTrigrams(filter, text)
	return sub.Put(keyIndexTrigrams, filter)
}

// reindexBatch is how many chats one transaction of the rebuild at open re-indexes: a file of
// many chats is not rebuilt in one transaction held in memory whole.
const reindexBatch = 200

func stampOf(t time.Time) []byte { return binary.BigEndian.AppendUint64(nil, uint64(t.UnixNano())) }

// chatIndex is a chat's index bucket, nil when there is none (the index is then behind and
// is rebuilt at the next open).
func chatIndex(tx *bolt.Tx, chatID string) *bolt.Bucket {
	idx := tx.Bucket(bucketSearchIndex)
	if idx == nil {
		return nil
	}
	return idx.Bucket([]byte(chatID))
}

// indexCurrent reports whether a chat's index is whole: stamped with the chat's updatedAt.
func indexCurrent(sub *bolt.Bucket, updatedAt time.Time) bool {
	return stampCurrent(sub, stampOf(updatedAt))
}

// stampCurrent is indexCurrent for the stamp of an updatedAt (as chatsByUpdated keys hold it).
func stampCurrent(sub *bolt.Bucket, stamp []byte) bool {
	return sub != nil && bytes.Equal(sub.Get(keyIndexStamp), stamp) && sub.Get(keyIndexTitle) != nil
}

// putStamp declares a chat's index whole for the chat as c is saved.
func putStamp(sub *bolt.Bucket, stamp []byte, title string) error {
	if err := sub.Put(keyIndexTitle, []byte("t"+strings.ToLower(title))); err != nil {
		return err
	}
	return sub.Put(keyIndexStamp, stamp)
}

// stampIndex moves a chat's stamp from old's updatedAt to c's, within the write that saves c
// (old nil: a new chat, whose empty index is whole). A stamp that did not match stays as it
// is, so that an index behind its messages is never declared whole.
func stampIndex(tx *bolt.Tx, old, c *Chat) error {
	idx := tx.Bucket(bucketSearchIndex)
	if idx == nil {
		return nil
	}
	if old == nil {
		sub, err := idx.CreateBucketIfNotExists([]byte(c.ID))
		if err != nil {
			return err
		}
		return putStamp(sub, stampOf(c.UpdatedAt), c.Title)
	}
	sub := idx.Bucket([]byte(c.ID))
	if !indexCurrent(sub, old.UpdatedAt) {
		return nil
	}
	return putStamp(sub, stampOf(c.UpdatedAt), c.Title)
}

// indexMessage mirrors the message stored at seq into its chat's index.
func indexMessage(tx *bolt.Tx, chatID string, seq uint64, m *Message) error {
	sub := chatIndex(tx, chatID)
	if sub == nil {
		return nil
	}
	if !searchable(m) {
		return sub.Delete(seqKey(seq))
	}
	text := []byte(strings.ToLower(m.Content))
	if err := addToFilter(sub, text); err != nil {
		return err
	}
	return sub.Put(seqKey(seq), text)
}

// unindexMessage drops the message at seq from its chat's index (it is no longer shown).
func unindexMessage(tx *bolt.Tx, chatID string, seq uint64) error {
	if sub := chatIndex(tx, chatID); sub != nil {
		return sub.Delete(seqKey(seq))
	}
	return nil
}

// unindexChat drops a deleted chat's index.
func unindexChat(tx *bolt.Tx, chatID string) error {
	idx := tx.Bucket(bucketSearchIndex)
	if idx == nil || idx.Bucket([]byte(chatID)) == nil {
		return nil
	}
	return idx.DeleteBucket([]byte(chatID))
}

// searchable reports whether search looks at a message: the user's and the answers' text.
func searchable(m *Message) bool {
	return (m.Role == RoleUser || m.Role == RoleAssistant) && m.Content != ""
}

// reindex brings the index up to every chat's messages: it creates the index of a file that
// has none, re-indexes each chat whose stamp is not its updatedAt and drops the index of
// chats that are gone. A file whose index is whole is only read.
func (db *DB) reindex() error {
	var stale []staleChat
	var orphans [][]byte
	hasIndex := false
	if err := db.view(func(tx *bolt.Tx) error {
		idx := tx.Bucket(bucketSearchIndex)
		hasIndex = idx != nil
		cur := tx.Bucket(bucketChatsByUpdated).Cursor()
		for k, _ := cur.First(); k != nil; k, _ = cur.Next() {
			if len(k) < 8 {
				continue
			}
			id := string(k[8:])
			var sub *bolt.Bucket
			if idx != nil {
				sub = idx.Bucket([]byte(id))
			}
			if !stampCurrent(sub, k[:8]) {
				stale = append(stale, staleChat{id: id, stamp: append([]byte(nil), k[:8]...)})
			}
		}
		if idx != nil {
			chats := tx.Bucket(bucketChats)
			return idx.ForEachBucket(func(k []byte) error {
				if chats.Get(k) == nil {
					orphans = append(orphans, append([]byte(nil), k...))
				}
				return nil
			})
		}
		return nil
	}); err != nil {
		return err
	}
	if len(orphans) > 0 || (!hasIndex && len(stale) == 0) {
		if err := db.update("index chats for search", func(tx *bolt.Tx) error {
			idx, err := tx.CreateBucketIfNotExists(bucketSearchIndex)
			if err != nil {
				return err
			}
			for _, id := range orphans {
				if err := idx.DeleteBucket(id); err != nil {
					return err
				}
			}
			return nil
		}); err != nil {
			return err
		}
	}
	for len(stale) > 0 {
		batch := stale[:min(reindexBatch, len(stale))]
		stale = stale[len(batch):]
		if err := db.update("index chats for search", func(tx *bolt.Tx) error {
			for _, c := range batch {
				if err := reindexChat(tx, c); err != nil {
					return err
				}
			}
			return nil
		}); err != nil {
			return err
		}
	}
	return nil
}

// staleChat is a chat to re-index and the stamp its index gets (its updatedAt).
type staleChat struct {
	id    string
	stamp []byte
}

// reindexChat writes a chat's index anew from its shown messages.
func reindexChat(tx *bolt.Tx, c staleChat) error {
	idx, err := tx.CreateBucketIfNotExists(bucketSearchIndex)
	if err != nil {
		return err
	}
	// whatever is there goes, a bucket or (damage) a plain value
	if err := idx.DeleteBucket([]byte(c.id)); errors.Is(err, berrors.ErrIncompatibleValue) {
		err = idx.Delete([]byte(c.id))
	} else if errors.Is(err, berrors.ErrBucketNotFound) {
		err = nil
	}
	if err != nil {
		return err
	}
	sub, err := idx.CreateBucket([]byte(c.id))
	if err != nil {
		return err
	}
	chat, err := loadChat(tx, c.id)
	if err != nil {
		return err
	}
	msgs, err := messagesBucket(tx, c.id)
	if err != nil {
		return err
	}
	filter := make([]byte, trigramBits/8)
	if err := msgs.ForEach(func(k, v []byte) error {
		var m Message
		if json.Unmarshal(v, &m) != nil || !searchable(&m) {
			// a message that does not decode is shown to no one: nothing to find in it
			return nil
		}
		text := []byte(strings.ToLower(m.Content))
		addTrigrams(filter, text)
		return sub.Put(append([]byte(nil), k...), text)
	}); err != nil {
		return err
	}
	if err := sub.Put(keyIndexTrigrams, filter); err != nil {
		return err
	}
	return putStamp(sub, c.stamp, chat.Title)
}
