package store

import (
	"encoding/json"

	bolt "go.etcd.io/bbolt"

	"prototyper/tools"
)

// An undo or a redo writes files after it is decided, and a process can die among those
// writes. So it is journaled: [DB.BeginRevert] commits what it will write (and every content
// it needs) before the first write; [DB.CommitRevert] records it done, in the commit that
// removes its journal; [DB.DropRevert] removes the journal of one whose writes were taken
// back. A journal still there ([DB.Reverts]) is an undo or a redo that was interrupted: the
// caller finishes it or takes it back before anything else touches the chat's files.

// RevertJournal is an undo or a redo begun and not yet recorded done.
type RevertJournal struct {
	// Change is the undo's or redo's change, as [DB.CommitRevert] records it; its Paths may
	// be left out: they are the Writes that change their path (not [PathChange.Unchanged]).
	Change Change `json:"change"`
	// Revert are the changes it takes back; Restore those it makes stand again (a redo's
	// undone runs).
	Revert  []string `json:"revert,omitempty"`
	Restore []string `json:"restore,omitempty"`
	// Writes are the paths it writes, in order: each from Before (what was there when it
	// began) to After (what it puts there; a file's content is kept by its hash).
	Writes []PathChange `json:"writes"`
	// Request is what was asked, and Result what is reported once it is done, each as the
	// caller encodes them.
	Request json.RawMessage `json:"request,omitempty"`
	Result  json.RawMessage `json:"result,omitempty"`
}

// bucketJournal is the sub-bucket of a chat holding its journaled undo or redo: change id →
// RevertJournal.
var bucketJournal = []byte("revertJournal")

// BeginRevert commits j, and the content of each state of contents, before the undo or redo
// writes anything.
func (db *DB) BeginRevert(j RevertJournal, contents []tools.PathState) error {
	if j.Change.CreatedAt.IsZero() {
		j.Change.CreatedAt = db.now()
	}
	return db.update("begin undo", func(tx *bolt.Tx) error {
		b, err := changeBuckets(tx, j.Change.ChatID)
		if err != nil {
			return err
		}
		for _, s := range contents {
			if err := b.keep(s); err != nil {
				return err
			}
		}
		jb, err := chatBucket(tx, j.Change.ChatID).CreateBucketIfNotExists(bucketJournal)
		if err != nil {
			return err
		}
		return putJSON(jb, []byte(j.Change.ID), j)
	})
}

// CommitRevert records the undo or redo of j done (as [DB.RecordChange] would) and removes
// its journal, in one commit.
func (db *DB) CommitRevert(j RevertJournal) error {
	c := j.Change
	if len(c.Paths) == 0 {
		for _, w := range j.Writes {
			if !w.Unchanged() {
				c.Paths = append(c.Paths, w)
			}
		}
	}
	return db.update("save change", func(tx *bolt.Tx) error {
		if err := recordChange(tx, c, nil, j.Revert, j.Restore); err != nil {
			return err
		}
		return deleteJournal(tx, j.Change.ChatID, j.Change.ID)
	})
}

// DropRevert removes the journal of an undo or redo whose writes were taken back: it was
// never done.
func (db *DB) DropRevert(chatID, changeID string) error {
	return db.update("drop undo", func(tx *bolt.Tx) error { return deleteJournal(tx, chatID, changeID) })
}

func deleteJournal(tx *bolt.Tx, chatID, changeID string) error {
	cb := chatBucket(tx, chatID)
	if cb == nil {
		return &NotFoundError{Kind: "chat", ID: chatID}
	}
	if jb := cb.Bucket(bucketJournal); jb != nil {
		return jb.Delete([]byte(changeID))
	}
	return nil
}

// Reverts returns the journals left of a chat's undos and redos, or of every chat's for
// chatID "": those a process began and did not finish.
func (db *DB) Reverts(chatID string) ([]RevertJournal, error) {
	var out []RevertJournal
	err := db.view(func(tx *bolt.Tx) error {
		collect := func(cb *bolt.Bucket) error {
			if jb := cb.Bucket(bucketJournal); jb != nil {
				return appendDecoded(jb, &out)
			}
			return nil
		}
		if chatID != "" {
			cb := chatBucket(tx, chatID)
			if cb == nil {
				return &NotFoundError{Kind: "chat", ID: chatID}
			}
			return collect(cb)
		}
		return tx.Bucket(bucketChat).ForEachBucket(func(k []byte) error {
			return collect(tx.Bucket(bucketChat).Bucket(k))
		})
	})
	return out, err
}
