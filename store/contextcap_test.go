package store

import (
	"testing"

	bolt "go.etcd.io/bbolt"

	"prototyper/store/storetest"
)

// TestUpgradingClearsAContextCapTheOldPanelSavedBackAsTheDefault: a file of schema 2 holding
// the default as its cap (what the settings panel saved back, which the loop read as no cap)
// holds no cap after the upgrade; any other cap is kept as it was.
func TestUpgradingClearsAContextCapTheOldPanelSavedBackAsTheDefault(t *testing.T) {
	for _, c := range []struct{ stored, want int }{{DefaultContextCap, 0}, {8192, 8192}, {32768, 32768}, {0, 0}} {
		db, path := openTestDB(t, nil)
		if err := db.PutSettings(Settings{ContextCap: c.stored, Think: "high"}); err != nil {
			t.Fatal(err)
		}
		db.Close()
		storetest.SetSchema(t, path, 2)
		db, err := Open(path, Options{})
		if err != nil {
			t.Fatal(err)
		}
		s, err := db.Settings()
		db.Close()
		if err != nil || s.ContextCap != c.want || s.Think != "high" {
			t.Errorf("a stored cap of %d reads %d after the upgrade (think %q, %v); want %d and the rest kept", c.stored, s.ContextCap, s.Think, err, c.want)
		}
	}
}

// TestUpgradingBringsAContextCapWithinRange: a file of schema 3 holding a cap the panel took
// before the range was checked (too small for a prompt, or a number typed twice) holds the
// nearest cap in range after the upgrade, so that a later change of the settings passes their
// check; a cap in range, or none, is kept.
func TestUpgradingBringsAContextCapWithinRange(t *testing.T) {
	for _, c := range []struct{ stored, want int }{{512, MinContextCap}, {1638416384, MaxContextCap}, {8192, 8192}, {0, 0}} {
		db, path := openTestDB(t, nil)
		// as the old panel saved it, past today's check
		if err := db.update("old settings", func(tx *bolt.Tx) error {
			return putJSON(tx.Bucket(bucketSettings), keySettings, &Settings{ContextCap: c.stored, Think: "high"})
		}); err != nil {
			t.Fatal(err)
		}
		db.Close()
		storetest.SetSchema(t, path, 3)
		db, err := Open(path, Options{})
		if err != nil {
			t.Fatal(err)
		}
		s, err := db.Settings()
		if err != nil || s.ContextCap != c.want || s.Think != "high" {
			t.Errorf("a stored cap of %d reads %d after the upgrade (think %q, %v); want %d and the rest kept", c.stored, s.ContextCap, s.Think, err, c.want)
		}
		if _, err := db.UpdateSettings(func(s *Settings) error { s.DefaultModel = "m"; return nil }); err != nil {
			t.Errorf("a stored cap of %d: choosing a model after the upgrade: %v", c.stored, err)
		}
		db.Close()
	}
}
