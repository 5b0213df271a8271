package store

// What the window had when it was closed: the text typed in each chat's box and not sent, and
// the chat it showed. Both live in the settings bucket.

import (
	"encoding/json"

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
		return editDrafts(tx, func(d map[string]string) {
			if text == "" {
				delete(d, chatID)
			} else {
				d[chatID] = text
			}
		})
	})
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
