package store

import (
	"encoding/json"
	"fmt"
	"slices"
	"strconv"
	"strings"

	bolt "go.etcd.io/bbolt"
)

// A message's id is its chat's id, "-m", and its sequence number in the chat: unique across
// the store, and the key of the message is found from it without an index.
func messageID(chatID string, seq uint64) string {
	return chatID + "-m" + strconv.FormatUint(seq, 10)
}

func messageSeq(chatID, id string) (uint64, bool) {
	rest, ok := strings.CutPrefix(id, chatID+"-m")
	if !ok {
		return 0, false
	}
	seq, err := strconv.ParseUint(rest, 10, 64)
	return seq, err == nil && seq > 0
}

// AppendMessage adds m at the end of a chat and returns it with its ID, ChatID and times set.
// Only an assistant message streams, so any other is stored Complete. It is on disk when
// AppendMessage returns.
func (db *DB) AppendMessage(chatID string, m Message) (Message, error) {
	err := db.update("append message", func(tx *bolt.Tx) (err error) {
		m, err = db.appendMessageTx(tx, chatID, m)
		return err
	})
	return m, err
}

// appendMessageTx adds m at the end of a chat within tx and returns it as stored.
func (db *DB) appendMessageTx(tx *bolt.Tx, chatID string, m Message) (Message, error) {
	if m.Role != RoleAssistant {
		m.Complete = true
	}
	msgs, err := messagesBucket(tx, chatID)
	if err != nil {
		return m, err
	}
	seq, err := db.nextMessageSeq(msgs, chatID)
	if err != nil {
		return m, err
	}
	now := db.now()
	m.ID, m.ChatID = messageID(chatID, seq), chatID
	if m.CreatedAt.IsZero() {
		m.CreatedAt = now
	}
	m.UpdatedAt = now
	if err := putMessage(tx, msgs, chatID, seq, &m); err != nil {
		return m, err
	}
	return m, db.touchChat(tx, chatID, 1, &m)
}

// nextMessageSeq takes the next sequence of a chat's messages bucket, past any this process
// handed out already (a streaming message's reserved id among them).
func (db *DB) nextMessageSeq(msgs *bolt.Bucket, chatID string) (uint64, error) {
	db.seqMu.Lock()
	defer db.seqMu.Unlock()
	if taken := db.seqs[chatID]; msgs.Sequence() < taken {
		if err := msgs.SetSequence(taken); err != nil {
			return 0, err
		}
	}
	seq, err := msgs.NextSequence()
	if err != nil {
		return 0, err
	}
	db.noteSeqLocked(chatID, seq)
	return seq, nil
}

func (db *DB) noteSeqLocked(chatID string, seq uint64) {
	if db.seqs == nil {
		db.seqs = map[string]uint64{}
	}
	db.seqs[chatID] = max(db.seqs[chatID], seq)
}

// reserveMessageID gives a message of a chat its id without writing it: the sequence after
// every one stored or handed out. [DB.insertMessage] stores it there later; a message
// appended meanwhile comes after it.
func (db *DB) reserveMessageID(chatID string) (string, error) {
	db.seqMu.Lock()
	defer db.seqMu.Unlock()
	var stored uint64
	err := db.view(func(tx *bolt.Tx) error {
		msgs, err := messagesBucket(tx, chatID)
		if err != nil {
			return err
		}
		stored = msgs.Sequence()
		return nil
	})
	if err != nil {
		return "", err
	}
	seq := max(stored, db.seqs[chatID]) + 1
	db.noteSeqLocked(chatID, seq)
	return messageID(chatID, seq), nil
}

// insertMessage stores m for the first time under the id [DB.reserveMessageID] gave it. It
// is on disk when insertMessage returns.
func (db *DB) insertMessage(chatID string, m Message) error {
	return db.update("append message", func(tx *bolt.Tx) error {
		msgs, seq, raw, err := storedMessage(tx, chatID, m.ID)
		if err != nil {
			return err
		}
		if seq == 0 || raw != nil {
			return fmt.Errorf("message %s: %w", m.ID, errReservedTaken)
		}
		if msgs.Sequence() < seq { // a later process numbers on from here
			if err := msgs.SetSequence(seq); err != nil {
				return err
			}
		}
		m.ChatID, m.UpdatedAt = chatID, db.now()
		if err := putMessage(tx, msgs, chatID, seq, &m); err != nil {
			return err
		}
		return db.touchChat(tx, chatID, 1, &m)
	})
}

// UpdateMessage replaces a stored message (found by m.ID) in place: what a [MessageSaver] has
// of a streaming message so far, the end of a stream. CreatedAt is kept, UpdatedAt set.
func (db *DB) UpdateMessage(chatID string, m Message) error {
	return db.update("update message", func(tx *bolt.Tx) error {
		msgs, seq, old, err := storedMessage(tx, chatID, m.ID)
		if err != nil {
			return err
		}
		if old == nil {
			return &NotFoundError{Kind: "message", ID: m.ID}
		}
		var prev Message
		if err := json.Unmarshal(old, &prev); err != nil {
			return err
		}
		m.ChatID, m.CreatedAt, m.UpdatedAt = chatID, prev.CreatedAt, db.now()
		if err := putMessage(tx, msgs, chatID, seq, &m); err != nil {
			return err
		}
		return db.touchChat(tx, chatID, 0, nil)
	})
}

// Message returns one message of a chat.
func (db *DB) Message(chatID, id string) (Message, error) {
	var m Message
	err := db.view(func(tx *bolt.Tx) error {
		_, _, raw, err := storedMessage(tx, chatID, id)
		if err != nil {
			return err
		}
		if raw == nil {
			return &NotFoundError{Kind: "message", ID: id}
		}
		return json.Unmarshal(raw, &m)
	})
	return m, err
}

// Messages returns a chat's messages in order.
func (db *DB) Messages(chatID string) ([]Message, error) {
	var out []Message
	err := db.view(func(tx *bolt.Tx) error {
		msgs, err := messagesBucket(tx, chatID)
		if err != nil {
			return err
		}
		if c, err := loadChat(tx, chatID); err == nil {
			out = make([]Message, 0, c.MessageCount)
		}
		return appendDecoded(msgs, &out)
	})
	return out, err
}

// RecentMessages returns the last n messages of a chat, in order, reading only those: a
// window can open a long chat at its end.
func (db *DB) RecentMessages(chatID string, n int) ([]Message, error) {
	var out []Message
	err := db.view(func(tx *bolt.Tx) error {
		msgs, err := messagesBucket(tx, chatID)
		if err != nil {
			return err
		}
		cur := msgs.Cursor()
		for k, v := cur.Last(); k != nil && len(out) < n; k, v = cur.Prev() {
			var m Message
			if err := json.Unmarshal(v, &m); err != nil {
				return err
			}
			out = append(out, m)
		}
		return nil
	})
	slices.Reverse(out)
	return out, err
}

// storedMessage finds message id of a chat within tx: the chat's messages bucket, the
// message's sequence (0 when id names no message of this chat) and its stored bytes (nil when
// none are stored under it).
func storedMessage(tx *bolt.Tx, chatID, id string) (msgs *bolt.Bucket, seq uint64, raw []byte, err error) {
	msgs, err = messagesBucket(tx, chatID)
	if err != nil {
		return nil, 0, nil, err
	}
	seq, ok := messageSeq(chatID, id)
	if !ok {
		return msgs, 0, nil, nil
	}
	return msgs, seq, msgs.Get(seqKey(seq)), nil
}

// putMessage writes m under seq in a chat's messages bucket and indexes it for search: a
// message is never stored without its index entry.
func putMessage(tx *bolt.Tx, msgs *bolt.Bucket, chatID string, seq uint64, m *Message) error {
	if err := putJSON(msgs, seqKey(seq), m); err != nil {
		return err
	}
	return indexMessage(tx, chatID, seq, m)
}

// messagesBucket finds a chat's messages bucket (made with the chat).
func messagesBucket(tx *bolt.Tx, chatID string) (*bolt.Bucket, error) {
	return chatSubBucket(tx, chatID, bucketMessages)
}

// chatSubBucket finds one of the buckets every chat is created with.
func chatSubBucket(tx *bolt.Tx, chatID string, name []byte) (*bolt.Bucket, error) {
	cb := chatBucket(tx, chatID)
	if cb == nil {
		if tx.Bucket(bucketChats).Get([]byte(chatID)) != nil {
			return nil, &corruptError{what: fmt.Sprintf("chat %s has no bucket", chatID)}
		}
		return nil, &NotFoundError{Kind: "chat", ID: chatID}
	}
	b := cb.Bucket(name)
	if b == nil {
		return nil, &corruptError{what: fmt.Sprintf("chat %s has no %s bucket", chatID, name)}
	}
	return b, nil
}
