package store

import (
	"encoding/json"
	"errors"
	"fmt"
	"path/filepath"
	"sync"
	"testing"
	"time"

	"prototyper/store/storetest"

	bolt "go.etcd.io/bbolt"
)

func TestConcurrentSettingsUpdatesNeverLoseAChange(t *testing.T) {
	db, _ := openTestDB(t, nil)
	const writers, updates = 2, 50
	var wg sync.WaitGroup
	for w := range writers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range updates {
				_, err := db.UpdateSettings(func(s *Settings) error {
					// a read-modify-write of two fields: a counter both writers share, and a key
					// of this writer's own
					s.FirstByteTimeoutSec++
					if s.ToolApproval == nil {
						s.ToolApproval = map[string]string{}
					}
					s.ToolApproval[fmt.Sprintf("tool%d_%d", w, i)] = "ask"
					return nil
				})
				if err != nil {
					t.Error(err)
					return
				}
			}
		}()
	}
	wg.Wait()
	got, err := db.Settings()
	if err != nil {
		t.Fatal(err)
	}
	if got.FirstByteTimeoutSec != writers*updates {
		t.Errorf("FirstByteTimeoutSec = %d after %d increments: updates were lost", got.FirstByteTimeoutSec, writers*updates)
	}
	if len(got.ToolApproval) != writers*updates {
		t.Errorf("%d tool policies saved, want %d: updates were lost", len(got.ToolApproval), writers*updates)
	}
}

func TestUpdateSettingsReturnsWhatItSaved(t *testing.T) {
	db, _ := openTestDB(t, nil)
	if err := db.PutSettings(Settings{DefaultModel: "qwen3:4b", Think: "low"}); err != nil {
		t.Fatal(err)
	}
	saved, err := db.UpdateSettings(func(s *Settings) error { s.Workspace = "/w"; return nil })
	if err != nil {
		t.Fatal(err)
	}
	want := Settings{DefaultModel: "qwen3:4b", Think: "low", Workspace: "/w"}
	got, err := db.Settings()
	if err != nil {
		t.Fatal(err)
	}
	if fmt.Sprint(saved) != fmt.Sprint(want) || fmt.Sprint(got) != fmt.Sprint(want) {
		t.Errorf("returned %+v, stored %+v, want %+v", saved, got, want)
	}
}

func TestAnUpdateThatChangesNothingWritesNothing(t *testing.T) {
	db, _ := openTestDB(t, nil)
	if err := db.PutSettings(Settings{DefaultModel: "qwen3:4b", Workspace: "/w"}); err != nil {
		t.Fatal(err)
	}
	lastTx := func() (id int) {
		_ = db.bolt.View(func(tx *bolt.Tx) error { id = tx.ID(); return nil })
		return id
	}
	before := lastTx()
	saved, err := db.UpdateSettings(func(s *Settings) error { s.DefaultModel = "qwen3:4b"; return nil })
	if err != nil || saved.Workspace != "/w" {
		t.Fatalf("an unchanged update: %+v, %v; want the settings as saved and no error", saved, err)
	}
	if after := lastTx(); after != before {
		t.Errorf("an update that changed nothing committed (transaction %d -> %d): every message would sync the disk", before, after)
	}
	if _, err := db.UpdateSettings(func(s *Settings) error { s.DefaultModel = "llama3.2"; return nil }); err != nil {
		t.Fatal(err)
	}
	if got, _ := db.Settings(); got.DefaultModel != "llama3.2" || lastTx() == before {
		t.Errorf("a change after it: model %q, transaction %d; want it saved", got.DefaultModel, lastTx())
	}
}

func TestUpdateSettingsSavesNothingWhenTheEditFails(t *testing.T) {
	db, _ := openTestDB(t, nil)
	if err := db.PutSettings(Settings{DefaultModel: "before"}); err != nil {
		t.Fatal(err)
	}
	refused := errors.New("refused")
	_, err := db.UpdateSettings(func(s *Settings) error {
		s.DefaultModel = "after"
		return refused
	})
	if !errors.Is(err, refused) {
		t.Fatalf("err = %v, want the edit's own error", err)
	}
	if got, _ := db.Settings(); got.DefaultModel != "before" {
		t.Errorf("DefaultModel = %q: a failed edit was saved", got.DefaultModel)
	}
}

func TestInvalidSettingsAreRefusedAndNothingIsSaved(t *testing.T) {
	cases := []struct {
		name    string
		edit    func(*Settings)
		setting string
	}{
		{"unknown thinking level", func(s *Settings) { s.Think = "very" }, "think"},
		{"negative context cap", func(s *Settings) { s.ContextCap = -1 }, "contextCap"},
		{"a context cap too small for the prompt", func(s *Settings) { s.ContextCap = 100 }, "contextCap"},
		{"a context cap typed twice", func(s *Settings) { s.ContextCap = 1638416384 }, "contextCap"},
		{"negative first-byte wait", func(s *Settings) { s.FirstByteTimeoutSec = -5 }, "firstByteTimeoutSec"},
		{"negative paint wait", func(s *Settings) { s.AckFallbackMs = -1 }, "ackFallbackMs"},
		{"unknown approval policy", func(s *Settings) { s.ToolApproval = map[string]string{"write_file": "maybe"} }, "toolApproval"},
		{"relative Ollama program", func(s *Settings) { s.OllamaBinary = "bin/ollama" }, "ollamaBinary"},
		{"negative answer size", func(s *Settings) { s.MaxAnswerBytes = -1 }, "maxAnswerBytes"},
		{"an answer size that cuts real answers", func(s *Settings) { s.MaxAnswerBytes = 1000 }, "maxAnswerBytes"},
		{"an answer size that lets a server fill the memory", func(s *Settings) { s.MaxAnswerBytes = 64 << 30 }, "maxAnswerBytes"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			db, _ := openTestDB(t, nil)
			_, err := db.UpdateSettings(func(s *Settings) error { c.edit(s); return nil })
			var invalid *InvalidSettingError
			if !errors.As(err, &invalid) || invalid.Setting != c.setting {
				t.Fatalf("UpdateSettings err = %v, want an InvalidSettingError for %s", err, c.setting)
			}
			var s Settings
			c.edit(&s)
			if err := db.PutSettings(s); !errors.As(err, &invalid) {
				t.Errorf("PutSettings err = %v, want an InvalidSettingError", err)
			}
			if got, _ := db.Settings(); fmt.Sprint(got) != fmt.Sprint(Settings{}) {
				t.Errorf("settings = %+v after a refused save, want none", got)
			}
		})
	}
}

func TestZeroSettingsStandForTheDefaults(t *testing.T) {
	var s Settings
	if err := s.Validate(); err != nil {
		t.Errorf("the zero settings are invalid: %v", err)
	}
	if s.ThinkLevel() != DefaultThink || s.ContextCapTokens() != DefaultContextCap ||
		s.FirstByteTimeout() != 0 || s.AckFallback() != 0 {
		t.Errorf("zero settings: think %q, cap %d, first byte %v, fallback %v",
			s.ThinkLevel(), s.ContextCapTokens(), s.FirstByteTimeout(), s.AckFallback())
	}
	s = Settings{Think: "high", ContextCap: 4096, FirstByteTimeoutSec: 90, AckFallbackMs: 16}
	if s.ThinkLevel() != "high" || s.ContextCapTokens() != 4096 ||
		s.FirstByteTimeout() != 90*time.Second || s.AckFallback() != 16*time.Millisecond {
		t.Errorf("set settings: think %q, cap %d, first byte %v, fallback %v",
			s.ThinkLevel(), s.ContextCapTokens(), s.FirstByteTimeout(), s.AckFallback())
	}
}

func TestSettingsSavedWithTheOldNameOfTheAckFallbackAreReadUnderTheNewOne(t *testing.T) {
	for _, c := range []struct {
		saved string
		want  int
	}{
		{`{"coalesceMs":40}`, 40},
		{`{"ackFallbackMs":60}`, 60},
		{`{"ackFallbackMs":60,"coalesceMs":40}`, 60},
		{`{"think":"low"}`, 0},
	} {
		var s Settings
		if err := json.Unmarshal([]byte(c.saved), &s); err != nil {
			t.Fatal(err)
		}
		if s.AckFallbackMs != c.want {
			t.Errorf("%s: AckFallbackMs %d, want %d", c.saved, s.AckFallbackMs, c.want)
		}
	}
	b, err := json.Marshal(Settings{AckFallbackMs: 25, ToolApproval: map[string]string{"*": "ask"}})
	if err != nil {
		t.Fatal(err)
	}
	var back Settings
	if err := json.Unmarshal(b, &back); err != nil || back.AckFallbackMs != 25 || back.ToolApproval["*"] != "ask" {
		t.Fatalf("%s read back as %+v (%v)", b, back, err)
	}
}

func TestTheWindowStartsOllamaUnlessTheUserRunsItThemselves(t *testing.T) {
	if !(Settings{}).StartsOllama() {
		t.Error("the zero settings do not start Ollama")
	}
	if (Settings{ManualOllama: true}).StartsOllama() {
		t.Error("ManualOllama still starts Ollama")
	}
	if err := (Settings{OllamaBinary: "/opt/ollama/bin/ollama"}).Validate(); err != nil {
		t.Errorf("a full path to the Ollama program is refused: %v", err)
	}
}

func TestTheThemeIsSystemLightOrDark(t *testing.T) {
	for _, theme := range []string{"", "system", "light", "dark"} {
		if err := (Settings{Theme: theme}).Validate(); err != nil {
			t.Errorf("theme %q: %v", theme, err)
		}
	}
	var invalid *InvalidSettingError
	if err := (Settings{Theme: "blue"}).Validate(); !errors.As(err, &invalid) || invalid.Setting != "theme" {
		t.Errorf("theme blue: %v, want an InvalidSettingError", err)
	}
	if got := (Settings{}).ThemeName(); got != ThemeSystem {
		t.Errorf("the zero theme is %q, want system", got)
	}
}

func TestTheAnswerSizeLimitIsTheSettingElseEightMiB(t *testing.T) {
	if got := (Settings{}).MaxAnswer(); got != 8<<20 {
		t.Errorf("default %d", got)
	}
	if got := (Settings{MaxAnswerBytes: 32 << 20}).MaxAnswer(); got != 32<<20 {
		t.Errorf("set %d", got)
	}
}

func TestSettingsRoundTrip(t *testing.T) {
	db, _ := openTestDB(t, nil)
	if s, err := db.Settings(); err != nil || s.OllamaURL != "" {
		t.Fatalf("fresh settings = %+v, %v", s, err)
	}
	want := Settings{
		OllamaURL: "http://127.0.0.1:11434", DefaultModel: "qwen3:4b", Workspace: "/w", Think: "low",
		ContextCap: 8192, ToolApproval: map[string]string{"write_file": "ask", "*": "auto"}, AckFallbackMs: 16,
	}
	if err := db.PutSettings(want); err != nil {
		t.Fatal(err)
	}
	got, err := db.Settings()
	if err != nil {
		t.Fatal(err)
	}
	if fmt.Sprint(got) != fmt.Sprint(want) {
		t.Errorf("settings = %+v, want %+v", got, want)
	}
}

// TestTheOpenersSettingsCheckRefusesASaveAndNothingIsSaved: a rule the store does not own
// (a server's address, the MCP servers) comes from the opener, and a save it refuses leaves
// the saved settings as they were.
func TestTheOpenersSettingsCheckRefusesASaveAndNothingIsSaved(t *testing.T) {
	refused := &InvalidSettingError{Setting: "ollamaUrl", Reason: "not an address"}
	db, err := Open(filepath.Join(t.TempDir(), "prototyper.db"), Options{CheckSettings: func(s Settings) error {
		if s.OllamaURL == "nowhere" {
			return refused
		}
		return nil
	}})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = db.Close() })
	if err := db.PutSettings(Settings{OllamaURL: "nowhere"}); !errors.Is(err, refused) {
		t.Errorf("PutSettings err = %v, want the check's", err)
	}
	if _, err := db.UpdateSettings(func(s *Settings) error { s.OllamaURL = "nowhere"; return nil }); !errors.Is(err, refused) {
		t.Errorf("UpdateSettings err = %v, want the check's", err)
	}
	if got, _ := db.Settings(); got.OllamaURL != "" {
		t.Errorf("OllamaURL = %q after refused saves", got.OllamaURL)
	}
	if err := db.PutSettings(Settings{OllamaURL: "http://127.0.0.1:11434"}); err != nil {
		t.Errorf("a setting the check accepts: %v", err)
	}
}

// reopenedFrom saves settings as an older version did (past today's check), marks the file as
// of schema from, and opens it again: the upgrade runs.
func reopenedFrom(t *testing.T, from uint64, saved Settings) *DB {
	t.Helper()
	db, path := openTestDB(t, nil)
	if err := db.update("old settings", func(tx *bolt.Tx) error {
		return putJSON(tx.Bucket(bucketSettings), keySettings, &saved)
	}); err != nil {
		t.Fatal(err)
	}
	db.Close()
	storetest.SetSchema(t, path, from)
	db, err := Open(path, Options{})
	if err != nil {
		t.Fatal(err)
	}
	return db
}

// TestUpgradingClearsAContextCapTheOldPanelSavedBackAsTheDefault: a file of schema 2 holding
// the default as its cap (what the settings panel saved back, which the loop read as no cap)
// holds no cap after the upgrade; any other cap is kept as it was.
func TestUpgradingClearsAContextCapTheOldPanelSavedBackAsTheDefault(t *testing.T) {
	for _, c := range []struct{ stored, want int }{{DefaultContextCap, 0}, {8192, 8192}, {32768, 32768}, {0, 0}} {
		db := reopenedFrom(t, 2, Settings{ContextCap: c.stored, Think: "high"})
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
	for _, c := range []struct{ stored, want int }{{512, MinContextCap}, {1638416384, MaxContextCap}, {-1, 0}, {8192, 8192}, {0, 0}} {
		db := reopenedFrom(t, 3, Settings{ContextCap: c.stored, Think: "high"})
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
