package store

import (
	"encoding/json"

	bolt "go.etcd.io/bbolt"
)

// Settings returns the saved settings (the zero Settings before anything was saved).
func (db *DB) Settings() (Settings, error) {
	var s Settings
	err := db.view(func(tx *bolt.Tx) error {
		raw := tx.Bucket(bucketSettings).Get(keySettings)
		if raw == nil {
			return nil
		}
		return json.Unmarshal(raw, &s)
	})
	return s, err
}

// PutSettings saves the settings, replacing the previous ones.
func (db *DB) PutSettings(s Settings) error {
	return db.update("save settings", func(tx *bolt.Tx) error {
		return putJSON(tx.Bucket(bucketSettings), keySettings, &s)
	})
}
