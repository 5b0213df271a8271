package store

import (
	"encoding/binary"
	"encoding/json"
	"errors"
	"slices"

	bolt "go.etcd.io/bbolt"
)

// Versions of a chat's history. Editing a user message (or regenerating an answer) forks the
// chat: the message and everything after it are put aside as a branch, and the chat goes on
// from the message before it. The chat's messages bucket always holds the version shown (the
// one the model reads); every other version is a branch, kept whole, that ShowVersion brings
// back. A message keeps its key and id in every move, so its tool-call records still name it.
//
// Branches live in a bucket of the chat made by the first fork ("branches"): files of an
// older build simply have none, and no migration is needed.

// bucketBranches holds a chat's put-aside versions: the key is the sequence key of the
// version's first message, the value a [branch].
var bucketBranches = []byte("branches")

// ErrNoSuchVersion is returned when a version to show does not exist (anymore).
var ErrNoSuchVersion = errors.New("that version of the chat is gone; reopen the chat")

// branch is a version of a chat's history put aside: it followed the message After ("" when
// it starts the chat) and holds its messages in order.
type branch struct {
	After    string    `json:"after"`
	Messages []Message `json:"messages"`
}

// Version says, of a message that starts one version of the history after its predecessor,
// which version is shown and how many there are: the window's "< 2/3 >".
type Version struct {
	MessageID string `json:"messageId"` // the first message of the version shown
	Index     int    `json:"index"`     // 1-based, oldest version first
	Count     int    `json:"count"`
}

// ForkAt puts the message messageID and every message after it aside as a version of the
// chat, so that the next message appended starts a new one. It returns the id of the message
// before the fork ("" when the fork is at the chat's start).
func (db *DB) ForkAt(chatID, messageID string) (after string, err error) {
	err = db.update("fork chat", func(tx *bolt.Tx) error {
		msgs, err := messagesBucket(tx, chatID)
		if err != nil {
			return err
		}
		seq, ok := messageSeq(chatID, messageID)
		if !ok || msgs.Get(seqKey(seq)) == nil {
			return &NotFoundError{Kind: "message", ID: messageID}
		}
		after, err = previousMessage(msgs, seq)
		if err != nil {
			return err
		}
		return db.titledAfter(tx, chatID, msgs, func() error { return db.putAside(tx, chatID, msgs, seq, after) })
	})
	return after, err
}

// ShowVersion makes the version of the history after message `after` that starts with
// firstID the one shown: the version shown now is put aside, the chosen one brought back.
func (db *DB) ShowVersion(chatID, after, firstID string) error {
	return db.update("show version", func(tx *bolt.Tx) error {
		msgs, err := messagesBucket(tx, chatID)
		if err != nil {
			return err
		}
		seq, ok := messageSeq(chatID, firstID)
		if !ok {
			return ErrNoSuchVersion
		}
		return db.titledAfter(tx, chatID, msgs, func() error { return db.showBranch(tx, chatID, msgs, after, seq) })
	})
}

// ShowVersionAt shows version index (1-based, oldest first) of the history at the message
// shownID, which starts the version shown now.
func (db *DB) ShowVersionAt(chatID, shownID string, index int) error {
	return db.update("show version", func(tx *bolt.Tx) error {
		msgs, err := messagesBucket(tx, chatID)
		if err != nil {
			return err
		}
		shown, ok := messageSeq(chatID, shownID)
		if !ok || msgs.Get(seqKey(shown)) == nil {
			return ErrNoSuchVersion
		}
		after, err := previousMessage(msgs, shown)
		if err != nil {
			return err
		}
		starts := []uint64{shown}
		if err := eachBranch(tx, chatID, func(seq uint64, b branch) error {
			if b.After == after {
				starts = append(starts, seq)
			}
			return nil
		}); err != nil {
			return err
		}
		if index < 1 || index > len(starts) {
			return ErrNoSuchVersion
		}
		slices.Sort(starts)
		return db.titledAfter(tx, chatID, msgs, func() error { return db.showBranch(tx, chatID, msgs, after, starts[index-1]) })
	})
}

// showBranch brings back the branch starting at seq that follows after, putting aside what
// is shown after it now.
func (db *DB) showBranch(tx *bolt.Tx, chatID string, msgs *bolt.Bucket, after string, seq uint64) error {
	if msgs.Get(seqKey(seq)) != nil {
		return nil // shown already
	}
	branches := chatBucket(tx, chatID).Bucket(bucketBranches)
	if branches == nil {
		return ErrNoSuchVersion
	}
	raw := branches.Get(seqKey(seq))
	if raw == nil {
		return ErrNoSuchVersion
	}
	var b branch
	if err := json.Unmarshal(raw, &b); err != nil {
		return err
	}
	if b.After != after {
		return ErrNoSuchVersion
	}
	if s, ok := messageSeq(chatID, after); after != "" && (!ok || msgs.Get(seqKey(s)) == nil) {
		return ErrNoSuchVersion
	}
	// what follows `after` now is put aside first
	if next, ok := nextAfter(msgs, chatID, after); ok {
		if err := db.putAside(tx, chatID, msgs, next, after); err != nil {
			return err
		}
	}
	if err := branches.Delete(seqKey(seq)); err != nil {
		return err
	}
	for i := range b.Messages {
		s, ok := messageSeq(chatID, b.Messages[i].ID)
		if !ok {
			return &corruptError{what: "a message put aside has no valid id"}
		}
		if err := putMessage(tx, msgs, chatID, s, &b.Messages[i]); err != nil {
			return err
		}
	}
	return recountChat(tx, chatID, len(b.Messages))
}

// Versions lists, for every message of the shown history that starts one of several
// versions, which one is shown and how many there are; hidden holds the ids of the messages
// of every version not shown (their tool-call records belong to them).
func (db *DB) Versions(chatID string) (versions []Version, hidden map[string]bool, err error) {
	hidden = map[string]bool{}
	err = db.view(func(tx *bolt.Tx) error {
		msgs, err := messagesBucket(tx, chatID)
		if err != nil {
			return err
		}
		firsts := map[string][]uint64{} // after → the first message seq of each version put aside
		if err := eachBranch(tx, chatID, func(seq uint64, b branch) error {
			for _, m := range b.Messages {
				hidden[m.ID] = true
			}
			firsts[b.After] = append(firsts[b.After], seq)
			return nil
		}); err != nil || len(firsts) == 0 {
			return err
		}
		prev := ""
		return msgs.ForEach(func(k, _ []byte) error {
			seq := seqOf(k)
			if others, ok := firsts[prev]; ok {
				index := 1
				for _, s := range others {
					if s < seq {
						index++
					}
				}
				versions = append(versions, Version{MessageID: messageID(chatID, seq), Index: index, Count: len(others) + 1})
			}
			prev = messageID(chatID, seq)
			return nil
		})
	})
	return versions, hidden, err
}

// eachBranch calls fn with each version of chatID's history put aside, by the sequence of its
// first message, decoded; none when the chat has no other version.
func eachBranch(tx *bolt.Tx, chatID string, fn func(seq uint64, b branch) error) error {
	branches := chatBucket(tx, chatID).Bucket(bucketBranches)
	if branches == nil {
		return nil
	}
	return branches.ForEach(func(k, v []byte) error {
		var b branch
		if err := json.Unmarshal(v, &b); err != nil {
			return err
		}
		return fn(seqOf(k), b)
	})
}

// putAside moves the messages from seq on into a branch that follows after.
func (db *DB) putAside(tx *bolt.Tx, chatID string, msgs *bolt.Bucket, seq uint64, after string) error {
	var b branch
	b.After = after
	var keys [][]byte
	cur := msgs.Cursor()
	for k, v := cur.Seek(seqKey(seq)); k != nil; k, v = cur.Next() {
		var m Message
		if err := json.Unmarshal(v, &m); err != nil {
			return err
		}
		b.Messages = append(b.Messages, m)
		keys = append(keys, append([]byte(nil), k...))
	}
	if len(keys) == 0 {
		return nil
	}
	for _, k := range keys {
		if err := msgs.Delete(k); err != nil {
			return err
		}
		if err := unindexMessage(tx, chatID, seqOf(k)); err != nil {
			return err
		}
	}
	branches, err := chatBucket(tx, chatID).CreateBucketIfNotExists(bucketBranches)
	if err != nil {
		return err
	}
	if err := putJSON(branches, seqKey(seq), &b); err != nil {
		return err
	}
	return recountChat(tx, chatID, -len(keys))
}

// previousMessage is the id of the message before seq ("" when none).
func previousMessage(msgs *bolt.Bucket, seq uint64) (string, error) {
	cur := msgs.Cursor()
	k, v := cur.Seek(seqKey(seq))
	if k == nil {
		return "", nil
	}
	if k, v = cur.Prev(); k == nil {
		return "", nil
	}
	var m Message
	if err := json.Unmarshal(v, &m); err != nil {
		return "", err
	}
	return m.ID, nil
}

// nextAfter is the sequence number of the message shown after the message `after` (the first
// one for "").
func nextAfter(msgs *bolt.Bucket, chatID, after string) (uint64, bool) {
	cur := msgs.Cursor()
	if after == "" {
		k, _ := cur.First()
		return seqOf(k), k != nil
	}
	seq, ok := messageSeq(chatID, after)
	if !ok {
		return 0, false
	}
	k, _ := cur.Seek(seqKey(seq + 1))
	return seqOf(k), k != nil
}

func seqOf(k []byte) uint64 {
	if len(k) != 8 {
		return 0
	}
	return binary.BigEndian.Uint64(k)
}
