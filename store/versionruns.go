package store

import (
	"encoding/json"

	bolt "go.etcd.io/bbolt"
)

// RunsNotShown returns the runs of a chat that belong only to versions of its history not
// shown (see [DB.ForkAt]): a run no message of the version shown carries. Undo and redo act on
// the version shown, so these are left as they are until their version is shown again. Nil
// when the chat has no other version.
func (db *DB) RunsNotShown(chatID string) (map[string]bool, error) {
	var out map[string]bool
	err := db.view(func(tx *bolt.Tx) error {
		msgs, err := messagesBucket(tx, chatID)
		if err != nil {
			return err
		}
		if err := eachBranch(tx, chatID, func(_ uint64, b branch) error {
			for _, m := range b.Messages {
				if m.RunID != "" {
					if out == nil {
						out = map[string]bool{}
					}
					out[m.RunID] = true
				}
			}
			return nil
		}); err != nil || out == nil {
			return err
		}
		// a run whose messages the fork split (a message queued during it) is of the version shown
		return msgs.ForEach(func(_, v []byte) error {
			var m struct {
				RunID string `json:"runId"`
			}
			if err := json.Unmarshal(v, &m); err != nil {
				return err
			}
			delete(out, m.RunID)
			return nil
		})
	})
	return out, err
}
