package desktop

import (
	"encoding/json"
	"errors"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"prototyper/internal/cli"
	"prototyper/store"
)

// everySetting is settings with no field at its zero value, in folder ws with model m (the
// session's), at the Ollama address url: a field added to store.Settings fails the tests that
// use it until it is given a value here.
func everySetting(t *testing.T, ws, m, url string) store.Settings {
	t.Helper()
	s := store.Settings{OllamaURL: url, DefaultModel: m, Workspace: ws, Think: "low", ContextCap: 8192,
		ToolApproval: map[string]string{"write_file": "deny", "*": "ask"}, AckFallbackMs: 250, FirstByteTimeoutSec: 90,
		ManualOllama: true, OllamaBinary: "/opt/ollama/bin/ollama", CheckpointMaxBytes: 1 << 20, MaxAnswerBytes: 16 << 20,
		AlwaysAllow: map[string][]string{ws: {"write_file"}}, CommandRules: map[string][]store.CommandRule{ws: {{Pattern: "go test", Network: true}}},
		CommandDeny: []string{"rm -rf /"}, UnconfinedCommands: true, Instructions: map[string]string{ws: "Answer in French.", "/elsewhere": "Be brief."},
		KeepAliveMin: 5, LoopRepeats: 4, OlderTurns: store.SummarizeNever, Provider: store.ProviderOllama, BaseURL: "http://gpu:8000/v1",
		APIKeyEnv: "PROTOTYPER_TEST_KEY", MCPServers: json.RawMessage(`{"mcpServers":{}}`), Theme: store.ThemeDark,
		Sidebar: store.SidebarHidden, RecentFolders: []string{ws, "/elsewhere"}, IgnoreTextToolCalls: true}
	v := reflect.ValueOf(s)
	for i := range v.NumField() {
		if v.Field(i).IsZero() {
			t.Fatalf("the test's settings leave %s at its zero value: give it one", v.Type().Field(i).Name)
		}
	}
	return s
}

// Every setting the panel saves comes back in Config as saved, but those the session keeps
// (keptBySession): the recent folders, the ack fallback and the sidebar stay as stored, and so
// does the provider's spelling.
func TestEverySettingSavedFromThePanelIsShownBackAsSaved(t *testing.T) {
	ws := t.TempDir()
	t.Setenv("PROTOTYPER_TEST_KEY", "k")
	d, _ := openTestDesktop(t, cli.DesktopOptions{Workspace: ws, Model: "m", Common: cli.Common{Ollama: "http://127.0.0.1:1"}})
	stored, err := d.db.Settings()
	if err != nil {
		t.Fatal(err)
	}
	in := everySetting(t, ws, "m", "http://127.0.0.1:2")
	if err := d.SaveSettings(in); err != nil {
		t.Fatal(err)
	}
	c, err := d.Config()
	if err != nil {
		t.Fatal(err)
	}
	want := in
	want.RecentFolders, want.AckFallbackMs, want.Sidebar = stored.RecentFolders, stored.AckFallbackMs, stored.Sidebar
	want.Provider = stored.Provider // Ollama, stored as none, keeps that spelling
	if !reflect.DeepEqual(c.Saved, want) {
		t.Errorf("shown back\n%+v\nwant\n%+v", c.Saved, want)
	}
	if c.Instructions != "Answer in French." || c.OllamaURL != "http://127.0.0.1:2" {
		t.Errorf("in effect: instructions %q, address %q", c.Instructions, c.OllamaURL)
	}
}

// Settings saved back as the panel was given them change nothing stored: not a default
// written where none was, not a field the panel does not show. The panel sends the address and
// the provider in use; the same server spelled otherwise keeps the spelling stored.
func TestSavingTheSettingsAsGivenChangesNothingSaved(t *testing.T) {
	ws := t.TempDir()
	t.Setenv("PROTOTYPER_TEST_KEY", "k")
	db := filepath.Join(t.TempDir(), "prototyper.db")
	for name, s := range map[string]store.Settings{
		"every field set":            everySetting(t, ws, "m", "http://127.0.0.1:1"),
		"none set but the session's": {OllamaURL: "127.0.0.1:1", DefaultModel: "m", Workspace: ws, RecentFolders: []string{ws}},
	} {
		t.Run(name, func(t *testing.T) {
			d, closeDesk := openTestDesktop(t, cli.DesktopOptions{Workspace: ws, Model: "m", Common: cli.Common{Ollama: "http://127.0.0.1:1", DB: db}})
			if err := d.db.PutSettings(s); err != nil {
				t.Fatal(err)
			}
			before, _ := d.db.Settings()
			c, err := d.Config()
			if err != nil {
				t.Fatal(err)
			}
			sent := c.Saved
			sent.OllamaURL, sent.Provider = c.OllamaURL, c.Provider
			if err := d.SaveSettings(sent); err != nil {
				t.Fatal(err)
			}
			after, _ := d.db.Settings()
			if !reflect.DeepEqual(after, before) {
				t.Errorf("saved as given, the settings changed:\n%+v\nwere\n%+v", after, before)
			}
			closeDesk()
		})
	}
}

// The context cap is saved as the user set it, and none stays none: the panel is given no cap
// when none is set (the default beside it); a cap typed equal to the default is a cap all the
// same.
func TestTheContextCapIsSavedAsTheUserSetItAndNoneStaysNone(t *testing.T) {
	d, _ := openTestDesktop(t, cli.DesktopOptions{Workspace: t.TempDir(), Model: "m", Common: cli.Common{Ollama: "http://127.0.0.1:1"}})
	shown, err := d.Config()
	if err != nil {
		t.Fatal(err)
	}
	if shown.Saved.ContextCap != 0 || shown.Defaults.ContextCap != store.DefaultContextCap {
		t.Fatalf("the panel is shown a cap of %d (default %d); want none, and the default beside it", shown.Saved.ContextCap, shown.Defaults.ContextCap)
	}
	if err := d.SaveSettings(shown.Saved); err != nil {
		t.Fatal(err)
	}
	if s, _ := d.db.Settings(); s.ContextCap != 0 {
		t.Errorf("saving the settings as shown stored a cap of %d; want none", s.ContextCap)
	}
	shown.Saved.ContextCap = store.DefaultContextCap
	if err := d.SaveSettings(shown.Saved); err != nil {
		t.Fatal(err)
	}
	if s, _ := d.db.Settings(); s.ContextCap != store.DefaultContextCap {
		t.Errorf("a cap of %d was stored as %d", store.DefaultContextCap, s.ContextCap)
	}
	if c, _ := d.Config(); c.Saved.ContextCap != store.DefaultContextCap {
		t.Errorf("the panel is shown a cap of %d; want the %d the user set", c.Saved.ContextCap, store.DefaultContextCap)
	}
}

// The panel sends MCP text it cannot read as a JSON string: the save is refused with the MCP
// code's one sentence, and blank text is no servers.
func TestMCPTextThatIsNotJSONIsRefusedWithOneSentence(t *testing.T) {
	d, _ := openTestDesktop(t, cli.DesktopOptions{Workspace: t.TempDir(), Model: "m", Common: cli.Common{Ollama: "http://127.0.0.1:1"}})
	text, _ := json.Marshal(`{"mcpServers": {"x": {"command": "y",}}}`)
	err := d.SaveSettings(store.Settings{MCPServers: text})
	var invalid *store.InvalidSettingError
	if !errors.As(err, &invalid) || invalid.Setting != "mcpServers" || !strings.Contains(err.Error(), "are not valid JSON: something unexpected at line 1, column 38") ||
		strings.Contains(err.Error(), "invalid character") || !strings.Contains(err.Error(), `{"mcpServers": {"NAME": {"command": …}}}`) {
		t.Fatalf("MCP text that is not JSON: %v", err)
	}
	for _, blank := range []string{`"  "`, `null`} {
		if err := d.SaveSettings(store.Settings{MCPServers: json.RawMessage(blank)}); err != nil {
			t.Fatalf("MCP text %s: %v", blank, err)
		}
		if s, _ := d.db.Settings(); s.MCPServers != nil {
			t.Errorf("MCP text %s saved as %s; want none", blank, s.MCPServers)
		}
	}
}

// A document of servers pasted without the "mcpServers" wrapper, or under a misspelt key, is
// refused with a sentence saying where the servers go (it read as "no servers" when saved); so
// is a list, with a sentence naming no empty field; nothing is saved.
func TestMCPServersOutsideTheMCPServersKeyAreRefusedSayingWhereTheyGo(t *testing.T) {
	d, _ := openTestDesktop(t, cli.DesktopOptions{Workspace: t.TempDir(), Model: "m", Common: cli.Common{Ollama: "http://127.0.0.1:1"}})
	for doc, says := range map[string]string{
		`{"everything": {"command": "npx", "args": ["-y", "@modelcontextprotocol/server-everything"]}}`: `no server was found in the MCP servers of the settings (they hold "everything"): the servers go under "mcpServers", e.g. {"mcpServers": {"NAME": {"command": …}}}`,
		`{"mcpserver": {"x": {"command": "y"}}}`:                                                        `(they hold "mcpserver")`,
		`[]`:                                                                                            `the MCP servers of the settings should be a JSON object, not a list: the servers go under "mcpServers"`,
	} {
		err := d.SaveSettings(store.Settings{MCPServers: json.RawMessage(doc)})
		var invalid *store.InvalidSettingError
		if !errors.As(err, &invalid) || invalid.Setting != "mcpServers" || !strings.Contains(err.Error(), says) || strings.Contains(err.Error(), `""`) {
			t.Errorf("MCP servers %s: %v; want a refusal saying %s", doc, err, says)
		}
		if s, _ := d.db.Settings(); s.MCPServers != nil {
			t.Errorf("MCP servers %s saved as %s; want nothing saved", doc, s.MCPServers)
		}
	}
	for _, doc := range []string{`{}`, `{"mcpServers": {}}`, `{"servers": {"x": {"command": "y"}}, "inputs": []}`} {
		if err := d.SaveSettings(store.Settings{MCPServers: json.RawMessage(doc)}); err != nil {
			t.Errorf("MCP servers %s: %v; want them saved", doc, err)
		}
	}
}

// The panel edits the instructions of the session's folder in the saved map: the edit is kept
// under the folder's clean path, replacing an older spelling of it, and the other folders'
// instructions are kept as they are.
func TestThePanelsInstructionsGoToTheSessionsFolder(t *testing.T) {
	ws := t.TempDir()
	d, _ := openTestDesktop(t, cli.DesktopOptions{Workspace: ws, Model: "m", Common: cli.Common{Ollama: "http://127.0.0.1:1"}})
	in := store.Settings{Instructions: map[string]string{ws + "/": "Old.", ws: " New. ", "/elsewhere": "Be brief."}}
	if err := d.SaveSettings(in); err != nil {
		t.Fatal(err)
	}
	s, _ := d.db.Settings()
	if want := map[string]string{ws: "New.", "/elsewhere": "Be brief."}; !reflect.DeepEqual(s.Instructions, want) {
		t.Errorf("instructions %v, want %v", s.Instructions, want)
	}
}
