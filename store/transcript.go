package store

import (
	"encoding/json"

	bolt "go.etcd.io/bbolt"
)

// Transcript is one chat with everything recorded about it, read in one transaction: what
// `prototyper chats show` and `export` present, and the shape of the JSON export.
type Transcript struct {
	Chat      Chat             `json:"chat"`
	Messages  []Message        `json:"messages"`
	ToolCalls []ToolCallRecord `json:"toolCalls"`
	Runs      []Run            `json:"runs"`
}

// Transcript reads a chat whole. Through a read-only handle, the runs a dead process left
// live come back as a writable Open would mark them (interrupted), so that their pending
// calls read as interrupted, without anything being written.
func (db *DB) Transcript(chatID string) (Transcript, error) {
	t := Transcript{Messages: []Message{}, ToolCalls: []ToolCallRecord{}, Runs: []Run{}}
	err := db.view(func(tx *bolt.Tx) error {
		c, err := loadChat(tx, chatID)
		if err != nil {
			return err
		}
		t.Chat = c
		for _, each := range []struct {
			bucket []byte
			read   func(k, v []byte) error
		}{
			{bucketMessages, func(_, v []byte) error { return appendJSON(&t.Messages, v) }},
			{bucketTools, func(_, v []byte) error { return appendJSON(&t.ToolCalls, v) }},
			{bucketChatRuns, func(id, _ []byte) error {
				r, err := db.loadRun(tx, string(id))
				t.Runs = append(t.Runs, r)
				return err
			}},
		} {
			b, err := chatSubBucket(tx, chatID, each.bucket)
			if err != nil {
				return err
			}
			if err := b.ForEach(each.read); err != nil {
				return err
			}
		}
		return nil
	})
	sortRuns(t.Runs)
	return t, err
}

// Interrupted reports whether a call's record says it was cut short: still pending, with no
// live run to finish it (the process died while the tool ran). The window paints such a
// record as interrupted; the readers say so.
func (t Transcript) Interrupted(r ToolCallRecord) bool {
	if !r.Pending {
		return false
	}
	for _, run := range t.Runs {
		if run.ID == r.RunID {
			return !run.Live
		}
	}
	return true
}

func appendJSON[T any](out *[]T, raw []byte) error {
	var v T
	if err := json.Unmarshal(raw, &v); err != nil {
		return err
	}
	*out = append(*out, v)
	return nil
}
