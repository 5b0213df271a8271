package store

import (
	"encoding/json"

	bolt "go.etcd.io/bbolt"
)

// A chat's title is its first user message's first line until the user renames it. The
// version shown decides which message is first: a fork at that message, or another version
// shown there, changes the title with it, unless the user gave the chat a title of their own
// (one that is not the first message's). An edit followed by a refused send shows the old
// version again, and so the old title.

// titledAfter calls change, which may change which messages msgs shows, and titles the chat
// after the first user message shown then if it was titled after the one shown before.
func (db *DB) titledAfter(tx *bolt.Tx, chatID string, msgs *bolt.Bucket, change func() error) error {
	before, err := firstUserText(msgs)
	if err != nil {
		return err
	}
	if err := change(); err != nil {
		return err
	}
	after, err := firstUserText(msgs)
	if err != nil || after == before {
		return err
	}
	old, err := loadChat(tx, chatID)
	if err != nil || old.Title != titleFrom(before) {
		return err // a title of the user's stays
	}
	c := old
	c.Title = titleFrom(after) // "" until the next message: the one that starts the version
	return saveChat(tx, &old, &c)
}

// firstUserText is the text of the first user message msgs shows ("" when none).
func firstUserText(msgs *bolt.Bucket) (string, error) {
	cur := msgs.Cursor()
	for k, v := cur.First(); k != nil; k, v = cur.Next() {
		var m struct {
			Role    string `json:"role"`
			Content string `json:"content"`
		}
		if err := json.Unmarshal(v, &m); err != nil {
			return "", err
		}
		if m.Role == RoleUser {
			return m.Content, nil
		}
	}
	return "", nil
}
