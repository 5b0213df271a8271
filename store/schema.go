package store

import (
	"encoding/binary"
	"encoding/json"
	"fmt"

	bolt "go.etcd.io/bbolt"
)

// migration brings a file from schema version to-1 to version to, inside the one transaction
// that also records the new version.
type migration struct {
	to    uint64
	about string
	apply func(tx *bolt.Tx) error
}

// migrations are applied in order; the schema version is the number of them. Append only.
var migrations = []migration{
	{to: 1, about: "chats, messages, tool-call records, runs and settings", apply: createBucketsV1},
	{to: 2, about: "each change's paths kept apart from it", apply: splitChangePaths},
	{to: 3, about: "a context cap saved back as the default is no cap", apply: uncapDefaultContext},
	{to: 4, about: "a context cap within what a model can be asked for", apply: boundContextCap},
}

// CurrentSchema is the schema version this build writes.
func CurrentSchema() uint64 { return uint64(len(migrations)) }

func createBucketsV1(tx *bolt.Tx) error {
	for _, name := range [][]byte{bucketChats, bucketChatsByUpdated, bucketChat, bucketRuns, bucketLiveRuns, bucketSettings} {
		if _, err := tx.CreateBucketIfNotExists(name); err != nil {
			return err
		}
	}
	return nil
}

// schemaVersion reads the file's version. A file without one is new when it holds no bucket
// at all (empty: a process died before its first commit); otherwise it is not ours to read.
func (db *DB) schemaVersion() (version uint64, empty bool, err error) {
	err = db.view(func(tx *bolt.Tx) error {
		b := tx.Bucket(bucketMeta)
		if b == nil {
			k, _ := tx.Cursor().First()
			empty = k == nil
			return nil
		}
		raw := b.Get(keySchema)
		if len(raw) != 8 {
			return &corruptError{what: "no valid schema version"}
		}
		version = binary.BigEndian.Uint64(raw)
		return nil
	})
	return version, empty, err
}

// checkBuckets makes sure that every bucket of the current schema is there, so that no read
// meets a missing one.
func (db *DB) checkBuckets() error {
	return db.view(func(tx *bolt.Tx) error {
		for _, name := range [][]byte{bucketMeta, bucketChats, bucketChatsByUpdated, bucketChat, bucketRuns, bucketLiveRuns, bucketSettings} {
			if tx.Bucket(name) == nil {
				return &corruptError{what: fmt.Sprintf("no %s bucket", name)}
			}
		}
		return nil
	})
}

// BackupPath is where Open copies a file of schema version from before migrating it.
func BackupPath(path string, from uint64) string {
	return fmt.Sprintf("%s.schema%d.bak", path, from)
}

// migrate copies the file aside (unless it is new) and then applies every migration after
// from in one transaction, so that a crash leaves either the old file or the new one.
func (db *DB) migrate(from uint64) error {
	if from > 0 {
		backup := BackupPath(db.path, from)
		if err := db.view(func(tx *bolt.Tx) error { return tx.CopyFile(backup, 0o600) }); err != nil {
			return fmt.Errorf("cannot back up the database to %s before upgrading it: %w", backup, err)
		}
	}
	return db.update("schema upgrade", func(tx *bolt.Tx) error {
		meta, err := tx.CreateBucketIfNotExists(bucketMeta)
		if err != nil {
			return err
		}
		for _, m := range migrations[from:] {
			if err := m.apply(tx); err != nil {
				return fmt.Errorf("upgrading the database to schema %d (%s): %w", m.to, m.about, err)
			}
		}
		return meta.Put(keySchema, binary.BigEndian.AppendUint64(nil, CurrentSchema()))
	})
}

// splitChangePaths moves the paths of every change, held in the change's own record until
// schema 2, into their own records and index (bucketChangePaths), keeping each change's key.
func splitChangePaths(tx *bolt.Tx) error {
	chats := tx.Bucket(bucketChat)
	if chats == nil {
		return nil
	}
	return chats.ForEachBucket(func(id []byte) error {
		cb := chats.Bucket(id)
		if cb.Bucket(bucketChanges) == nil {
			return nil
		}
		s, err := changeBuckets(tx, string(id))
		if err != nil {
			return err
		}
		type old struct {
			key []byte
			c   Change
		}
		var all []old
		if err := s.changes.ForEach(func(k, v []byte) error {
			var c Change
			if err := json.Unmarshal(v, &c); err != nil {
				return err
			}
			all = append(all, old{append([]byte{}, k...), c})
			return nil
		}); err != nil {
			return err
		}
		for _, o := range all {
			h := &changeHead{Change: o.c}
			for _, pc := range o.c.Paths {
				if err := s.addPath(o.key, h, pc); err != nil {
					return err
				}
			}
			if err := s.putHead(o.key, h); err != nil {
				return err
			}
		}
		return nil
	})
}

// editSavedSettings lets edit change the saved settings within a migration's transaction, and
// saves them when it reports a change; a file without saved settings is left as it is.
func editSavedSettings(tx *bolt.Tx, edit func(s *Settings) (changed bool)) error {
	b := tx.Bucket(bucketSettings)
	if b == nil || b.Get(keySettings) == nil {
		return nil
	}
	var s Settings
	if err := getSettings(tx, &s); err != nil {
		return err
	}
	if !edit(&s) {
		return nil
	}
	return putJSON(b, keySettings, &s)
}

// uncapDefaultContext clears a context cap equal to [DefaultContextCap]. Until schema 3 the
// settings panel showed the default as the cap's value and saved it back as a number, and the
// loop took that number for no cap (the context chosen from free memory). Clearing it keeps
// what every such file's user had; a cap of that size typed on purpose behaved as no cap all
// the same, so nothing the user saw changes.
func uncapDefaultContext(tx *bolt.Tx) error {
	return editSavedSettings(tx, func(s *Settings) bool {
		if s.ContextCap != DefaultContextCap {
			return false
		}
		s.ContextCap = 0
		return true
	})
}

// boundContextCap brings a saved context cap within [MinContextCap] and [MaxContextCap], the
// range the settings accept from schema 4: the panel took any number before, and a cap out of
// range would make every later change of the settings (a model chosen, a folder opened) fail
// their check. The nearest cap in range is what its user asked for as closely as can be.
func boundContextCap(tx *bolt.Tx) error {
	return editSavedSettings(tx, func(s *Settings) bool {
		switch {
		case s.ContextCap == 0 || (s.ContextCap >= MinContextCap && s.ContextCap <= MaxContextCap):
			return false
		case s.ContextCap < 0: // read as no cap, as the loop read it
			s.ContextCap = 0
		default:
			s.ContextCap = min(max(s.ContextCap, MinContextCap), MaxContextCap)
		}
		return true
	})
}
