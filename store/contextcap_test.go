package store

import (
	"testing"

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
