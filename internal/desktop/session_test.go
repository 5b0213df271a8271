package desktop

import (
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"prototyper/events"
	"prototyper/internal/cli"
	"prototyper/store"
)

// openTestDesktop opens a Desktop on a fresh database whose events are kept in order; the
// returned function closes it and returns every event it sent.
func openTestDesktop(t *testing.T, opts cli.DesktopOptions) (*Desktop, func() []events.Event) {
	t.Helper()
	d, closeDesk, _ := openWatchedDesktop(t, opts)
	return d, closeDesk
}

// openWatchedDesktop is openTestDesktop, and seen returns the events the window was sent so far.
func openWatchedDesktop(t *testing.T, opts cli.DesktopOptions) (d *Desktop, closeDesk, seen func() []events.Event) {
	t.Helper()
	if opts.DB == "" {
		opts.DB = filepath.Join(t.TempDir(), "prototyper.db")
	}
	var mu sync.Mutex
	var got []events.Event
	sink := events.AckOnDelivery(events.SinkFunc(func(batch []events.Event) error {
		mu.Lock()
		got = append(got, batch...)
		mu.Unlock()
		return nil
	}))
	d, err := OpenDesktop(opts, sink)
	if err != nil {
		t.Fatal(err)
	}
	seen = func() []events.Event {
		mu.Lock()
		defer mu.Unlock()
		return append([]events.Event(nil), got...)
	}
	closed := false
	closeDesk = func() []events.Event {
		if !closed {
			closed = true
			if err := d.Close(); err != nil {
				t.Error(err)
			}
		}
		return seen()
	}
	t.Cleanup(func() { closeDesk() })
	return d, closeDesk, seen
}

func TestConfigShowsTheFlagsAndFillsTheDefaults(t *testing.T) {
	ws := t.TempDir()
	d, _ := openTestDesktop(t, cli.DesktopOptions{Common: cli.Common{Ollama: "127.0.0.1:1"}, Workspace: ws, Model: "qwen3:0.6b"})
	c, err := d.Config()
	if err != nil {
		t.Fatal(err)
	}
	if c.Workspace != ws || c.Model != "qwen3:0.6b" || c.OllamaURL != "http://127.0.0.1:1" {
		t.Errorf("flags not applied: %+v", c.InEffect)
	}
	if c.Saved.ThinkLevel() != store.DefaultThink || c.Saved.ContextCap != 0 || c.Defaults.ContextCap != store.DefaultContextCap || c.Saved.FirstByteTimeoutSec != 0 {
		t.Errorf("defaults not filled in: %+v", c.Saved)
	}
	if len(c.Tools) == 0 || len(c.ToolApproval) != len(c.Tools) || c.DBPath != d.DBPath() {
		t.Errorf("tools %v, policies %v, db %q", c.Tools, c.ToolApproval, c.DBPath)
	}
}

func TestSavingInvalidSettingsChangesNothing(t *testing.T) {
	d, _ := openTestDesktop(t, cli.DesktopOptions{Common: cli.Common{Ollama: "127.0.0.1:1"}, Model: "before"})
	err := d.SaveSettings(store.Settings{DefaultModel: "after", OllamaURL: "http://127.0.0.1:2", Think: "very"})
	var invalid *store.InvalidSettingError
	if !errors.As(err, &invalid) {
		t.Fatalf("err = %v, want an InvalidSettingError", err)
	}
	c, _ := d.Config()
	if c.Model != "before" || c.OllamaURL != "http://127.0.0.1:1" || c.Saved.ThinkLevel() != store.DefaultThink {
		t.Errorf("a refused save changed %+v", c.Saved)
	}
}

func TestConcurrentSettingsChangesOfTheWindowKeepEachOther(t *testing.T) {
	d, _ := openTestDesktop(t, cli.DesktopOptions{Common: cli.Common{Ollama: "127.0.0.1:1"}})
	ws := t.TempDir()
	var wg sync.WaitGroup
	for _, change := range []func() error{
		func() error { return d.SaveSettings(store.Settings{Think: "low", ContextCap: 4096}) },
		func() error { return d.SetModel("qwen3:0.6b") },
		func() error { return d.SetWorkspace(ws) },
	} {
		wg.Add(1)
		go func() {
			defer wg.Done()
			if err := change(); err != nil {
				t.Error(err)
			}
		}()
	}
	wg.Wait()
	s, err := d.db.Settings()
	if err != nil {
		t.Fatal(err)
	}
	if s.Think != "low" || s.ContextCap != 4096 || s.DefaultModel != "qwen3:0.6b" || s.Workspace != ws {
		t.Errorf("settings = %+v: a change was lost", s)
	}
}

func TestTheSettingsKeepTheWorkspacesInstructionsAndTheRealModelSettings(t *testing.T) {
	ws := t.TempDir()
	d, _ := openTestDesktop(t, cli.DesktopOptions{Workspace: ws, Model: "m", Common: cli.Common{Ollama: "http://127.0.0.1:1"}})
	if c, _ := d.Config(); c.Saved.OlderTurnsPolicy() != store.SummarizeAsk {
		t.Fatalf("older messages that no longer fit, by default: %q", c.Saved.OlderTurnsPolicy())
	}
	in := store.Settings{Think: "on", Instructions: map[string]string{ws: "  Answer in French.  "}, KeepAliveMin: -1, LoopRepeats: 4, IgnoreTextToolCalls: true,
		OlderTurns: store.SummarizeNever}
	if err := d.SaveSettings(in); err != nil {
		t.Fatal(err)
	}
	c, err := d.Config()
	if err != nil {
		t.Fatal(err)
	}
	if c.Instructions != "Answer in French." || c.Saved.KeepAliveMin != -1 || c.Saved.LoopRepeats != 4 || !c.Saved.IgnoreTextToolCalls ||
		c.Saved.OlderTurns != store.SummarizeNever {
		t.Fatalf("config %+v", c.Saved)
	}
	if err := d.SaveSettings(store.Settings{OlderTurns: "sometimes"}); err == nil || !strings.Contains(err.Error(), "ask, always or never") {
		t.Fatalf("an older-messages choice that is none: %v", err)
	}
	in.Instructions = map[string]string{ws: ""}
	if err := d.SaveSettings(in); err != nil {
		t.Fatal(err)
	}
	if s, _ := d.db.Settings(); len(s.Instructions) != 0 {
		t.Fatalf("emptied instructions still kept: %v", s.Instructions)
	}
}

func TestReadImagesGivesBase64OrSaysWhichFileCannotGo(t *testing.T) {
	d, _ := openTestDesktop(t, cli.DesktopOptions{Common: cli.Common{Ollama: "http://127.0.0.1:1"}})
	dir := t.TempDir()
	pic := filepath.Join(dir, "dot.png")
	if err := os.WriteFile(pic, []byte("\x89PNG\r\n\x1a\nfake"), 0o644); err != nil {
		t.Fatal(err)
	}
	got, err := d.ReadImages([]string{pic})
	if err != nil || len(got) != 1 || got[0] != "iVBORw0KGgpmYWtl" {
		t.Fatalf("ReadImages = %q, %v", got, err)
	}
	if _, err := d.ReadImages([]string{dir}); err == nil || !strings.Contains(err.Error(), filepath.Base(dir)+" cannot be read as an image") {
		t.Fatalf("a folder: %v", err)
	}
}

func TestTheSettingsKeepTheAnswerSizeAndRefuseOneNoRunCouldUse(t *testing.T) {
	d, _ := openTestDesktop(t, cli.DesktopOptions{Workspace: t.TempDir(), Model: "m", Common: cli.Common{Ollama: "http://127.0.0.1:1"}})
	if err := d.SaveSettings(store.Settings{Think: "on", MaxAnswerBytes: 32 << 20}); err != nil {
		t.Fatal(err)
	}
	if c, err := d.Config(); err != nil || c.Saved.MaxAnswerBytes != 32<<20 {
		t.Fatalf("config holds %d, %v; want 32 MiB", c.Saved.MaxAnswerBytes, err)
	}
	err := d.SaveSettings(store.Settings{Think: "on", MaxAnswerBytes: 2 << 30})
	var invalid *store.InvalidSettingError
	if !errors.As(err, &invalid) || invalid.Setting != "maxAnswerBytes" {
		t.Fatalf("err = %v, want the answer size refused", err)
	}
	if s, _ := d.db.Settings(); s.MaxAnswerBytes != 32<<20 {
		t.Errorf("a refused save changed the answer size to %d", s.MaxAnswerBytes)
	}
}

// TestTheWindowsSettingsAreJudgedByTheRoomsThatOwnThem: the store imports no client and no
// MCP code, yet an address no client can use or MCP servers that do not parse are refused
// when the window saves them, and nothing is saved.
func TestTheWindowsSettingsAreJudgedByTheRoomsThatOwnThem(t *testing.T) {
	for _, tc := range []struct {
		name    string
		edit    func(*store.Settings)
		setting string
	}{
		{"an Ollama address that is none", func(s *store.Settings) { s.OllamaURL = "not a url" }, "ollamaUrl"},
		{"a base URL without a host", func(s *store.Settings) { s.Provider, s.BaseURL = store.ProviderOpenAI, "http://" }, "baseUrl"},
		{"MCP servers that do not parse", func(s *store.Settings) { s.MCPServers = json.RawMessage(`{"mcpServers":{"x":{}}}`) }, "mcpServers"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			d, _ := openTestDesktop(t, cli.DesktopOptions{Common: cli.Common{Ollama: "http://127.0.0.1:1"}})
			var in store.Settings
			tc.edit(&in)
			err := d.SaveSettings(in)
			var invalid *store.InvalidSettingError
			if !errors.As(err, &invalid) || invalid.Setting != tc.setting {
				t.Fatalf("SaveSettings = %v, want an InvalidSettingError for %s", err, tc.setting)
			}
			if s, _ := d.db.Settings(); s.BaseURL != "" || len(s.MCPServers) != 0 || s.OllamaURL == "not a url" {
				t.Errorf("settings %+v were saved", s)
			}
		})
	}
}
