package store

// The models the agent drives with tool calls written as text, because their calls through
// the server's API came back unreadable (agentloop's written calls). They live in a bucket of
// their own, created by the first such model.

import bolt "go.etcd.io/bbolt"

// bucketWrittenCalls holds one key per model name; the value is empty.
var bucketWrittenCalls = []byte("writtenCalls")

// SetWritesCalls records that model is driven with calls written as text from now on.
func (db *DB) SetWritesCalls(model string) error {
	return db.update("remember the model's form of calls", func(tx *bolt.Tx) error {
		b, err := tx.CreateBucketIfNotExists(bucketWrittenCalls)
		if err != nil {
			return err
		}
		return b.Put([]byte(model), []byte{})
	})
}

// WritesCalls reports whether model is driven with calls written as text ([DB.SetWritesCalls]).
func (db *DB) WritesCalls(model string) (bool, error) {
	var yes bool
	err := db.view(func(tx *bolt.Tx) error {
		if b := tx.Bucket(bucketWrittenCalls); b != nil {
			yes = b.Get([]byte(model)) != nil
		}
		return nil
	})
	return yes, err
}
