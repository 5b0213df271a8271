package storetest

import (
	"encoding/binary"
	"testing"

	bolt "go.etcd.io/bbolt"
)

// SetSchema writes the raw schema version v into the closed database file at path, as a
// newer (or older) Prototyper leaves it: in the layout the store package documents, bucket
// "meta", key "schema", a big-endian uint64.
func SetSchema(t testing.TB, path string, v uint64) {
	t.Helper()
	b, err := bolt.Open(path, 0o600, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer b.Close()
	if err := b.Update(func(tx *bolt.Tx) error {
		return tx.Bucket([]byte("meta")).Put([]byte("schema"), binary.BigEndian.AppendUint64(nil, v))
	}); err != nil {
		t.Fatal(err)
	}
}

// KilledBeforeFirstCommit writes at path what a process killed between creating the database
// file and its first commit leaves: a bbolt file without a bucket.
func KilledBeforeFirstCommit(t testing.TB, path string) {
	t.Helper()
	b, err := bolt.Open(path, 0o600, nil)
	if err != nil {
		t.Fatal(err)
	}
	if err := b.Close(); err != nil {
		t.Fatal(err)
	}
}
