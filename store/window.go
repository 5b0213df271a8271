package store

// What the window had when it was closed: the text typed in each chat's box and not sent, the
// messages a busy run had not taken yet, and the chat it showed. All live in the settings bucket
// but the images of the box and of the queue (unsentimages.go).

import (
	"encoding/json"
	"strings"

	bolt "go.etcd.io/bbolt"
)

// keyDrafts holds, in the settings bucket, the text typed in each chat's box and not sent:
// a JSON object from chat id ("" for a chat not started yet) to text.
var keyDrafts = []byte("drafts")

// SaveDraft keeps text as the unsent text of the chat chatID ("" for the chat the window
// starts with its first message), so that quitting the app loses nothing typed; an empty text
// forgets it.
func (db *DB) SaveDraft(chatID, text string) error {
	return db.update("save the unsent text", func(tx *bolt.Tx) error {
		return editDrafts(tx, func(d map[string]string) { putDraft(d, chatID, text) })
	})
}

// putDraft sets the unsent text of a chat in d; an empty one forgets it.
func putDraft(d map[string]string, chatID, text string) {
	if text == "" {
		delete(d, chatID)
	} else {
		d[chatID] = text
	}
}

// Drafts returns the unsent text of each chat that has one, by chat id.
func (db *DB) Drafts() (map[string]string, error) {
	d := map[string]string{}
	err := db.view(func(tx *bolt.Tx) error { return readDrafts(tx, d) })
	return d, err
}

func readDrafts(tx *bolt.Tx, d map[string]string) error {
	if raw := tx.Bucket(bucketSettings).Get(keyDrafts); raw != nil {
		return json.Unmarshal(raw, &d)
	}
	return nil
}

// editDrafts lets edit change the drafts within tx.
func editDrafts(tx *bolt.Tx, edit func(map[string]string)) error {
	d := map[string]string{}
	if err := readDrafts(tx, d); err != nil {
		return err
	}
	edit(d)
	return putJSON(tx.Bucket(bucketSettings), keyDrafts, d)
}

// keyOpenChat holds, in the settings bucket, the id of the chat the window showed last.
var keyOpenChat = []byte("openChat")

// SetOpenChat remembers the chat the window shows ("" for a chat not started yet), so that
// the app opened again shows it.
func (db *DB) SetOpenChat(chatID string) error {
	return db.update("remember the open chat", func(tx *bolt.Tx) error {
		return tx.Bucket(bucketSettings).Put(keyOpenChat, []byte(chatID))
	})
}

// OpenChatID is the chat the window showed last ("" when none, or when it was deleted).
func (db *DB) OpenChatID() (string, error) {
	var id string
	err := db.view(func(tx *bolt.Tx) error {
		raw := tx.Bucket(bucketSettings).Get(keyOpenChat)
		if len(raw) > 0 && tx.Bucket(bucketChats).Get(raw) != nil {
			id = string(raw)
		}
		return nil
	})
	return id, err
}

// keyQueued holds, in the settings bucket, the messages sent to each chat while its run was
// busy that the run has not taken yet: a JSON object from chat id to their texts, oldest
// first. The agent keeps it as its queue changes, so that a message shown as queued outlives
// the app; the next Open gives what it finds back to its chat's box.
var keyQueued = []byte("queued")

// SetQueued keeps queued as the messages waiting in the queue of chat chatID, their texts and
// their images (none forgets the chat's).
func (db *DB) SetQueued(chatID string, queued []Unsent) error {
	return db.update("keep the queued messages", func(tx *bolt.Tx) error {
		if err := keepQueuedImages(tx, chatID, queued); err != nil {
			return err
		}
		return editQueued(tx, func(q map[string][]string) { putQueued(q, chatID, queued) })
	})
}

// SetQueuedTexts keeps texts as those of chat chatID's queue, leaving its images as kept: a queue
// whose messages changed their texts alone (edited, taken by the run) does not rewrite them.
func (db *DB) SetQueuedTexts(chatID string, texts []string) error {
	return db.update("keep the queued messages", func(tx *bolt.Tx) error {
		return editQueued(tx, func(q map[string][]string) {
			if len(texts) == 0 {
				delete(q, chatID)
			} else {
				q[chatID] = texts
			}
		})
	})
}

// putQueued sets the texts of chat chatID's queue in q; none forgets it.
func putQueued(q map[string][]string, chatID string, queued []Unsent) {
	if len(queued) == 0 {
		delete(q, chatID)
	} else {
		q[chatID] = textsOf(queued)
	}
}

func textsOf(messages []Unsent) []string {
	texts := make([]string, len(messages))
	for i, m := range messages {
		texts[i] = m.Text
	}
	return texts
}

// Queued returns the texts kept as waiting in each chat's queue, by chat id.
func (db *DB) Queued() (map[string][]string, error) {
	q := map[string][]string{}
	err := db.view(func(tx *bolt.Tx) error { return readQueued(tx, q) })
	return q, err
}

// GiveBackQueued puts given, messages a stopped run never took, into the box of chat chatID,
// their texts after what the box held and their images after its images, and keeps stillQueued
// as the messages of its queue not stored yet (a run taking them stores them itself), in one
// transaction.
func (db *DB) GiveBackQueued(chatID string, given, stillQueued []Unsent) error {
	return db.update("give queued messages back", func(tx *bolt.Tx) error {
		if err := editDrafts(tx, func(d map[string]string) { putDraft(d, chatID, withTexts(d[chatID], textsOf(given))) }); err != nil {
			return err
		}
		for _, m := range given {
			if err := addDraftImages(tx, chatID, m.Images); err != nil {
				return err
			}
		}
		if err := keepQueuedImages(tx, chatID, stillQueued); err != nil {
			return err
		}
		return editQueued(tx, func(q map[string][]string) { putQueued(q, chatID, stillQueued) })
	})
}

// giveBackAllQueued puts every chat's kept queue into its unsent text and forgets it: Open
// does it, since no run outlives the process that started it.
func (db *DB) giveBackAllQueued() error {
	var some bool
	if err := db.view(func(tx *bolt.Tx) error {
		some = tx.Bucket(bucketSettings).Get(keyQueued) != nil || unsentImagesToTidy(tx)
		return nil
	}); err != nil || !some {
		return err // nothing to give back: no write
	}
	return db.update("give queued messages back", func(tx *bolt.Tx) error {
		q := map[string][]string{}
		if err := readQueued(tx, q); err != nil {
			return err
		}
		if err := editDrafts(tx, func(d map[string]string) {
			for id, texts := range q {
				putDraft(d, id, withTexts(d[id], texts))
			}
		}); err != nil {
			return err
		}
		if err := giveBackQueuedImages(tx); err != nil {
			return err
		}
		return tx.Bucket(bucketSettings).Delete(keyQueued)
	})
}

// withTexts is draft with texts after it, a blank line apart; a text the draft already holds as
// whole parts (the window saved the box with it given back) is not added again.
func withTexts(draft string, texts []string) string {
	parts := []string{}
	if strings.TrimSpace(draft) != "" {
		parts = append(parts, draft)
	}
	// a text is held when it is whole parts of the draft, blank-line separated: a word of it is not
	held := "\n\n" + draft + "\n\n"
	for _, t := range texts {
		if !strings.Contains(held, "\n\n"+t+"\n\n") {
			parts = append(parts, t)
		}
	}
	return strings.Join(parts, "\n\n")
}

func readQueued(tx *bolt.Tx, q map[string][]string) error {
	if raw := tx.Bucket(bucketSettings).Get(keyQueued); raw != nil {
		return json.Unmarshal(raw, &q)
	}
	return nil
}

// editQueued lets edit change the kept queues within tx; none left deletes the key.
func editQueued(tx *bolt.Tx, edit func(map[string][]string)) error {
	q := map[string][]string{}
	if err := readQueued(tx, q); err != nil {
		return err
	}
	edit(q)
	if len(q) == 0 {
		return tx.Bucket(bucketSettings).Delete(keyQueued)
	}
	return putJSON(tx.Bucket(bucketSettings), keyQueued, q)
}
