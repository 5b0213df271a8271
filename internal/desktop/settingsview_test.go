package desktop

import (
	"reflect"
	"testing"

	"prototyper/internal/cli"
	"prototyper/store"
)

// Every field of the panel's settings comes back as it was saved: a field added to [Settings]
// and translated one way only fails here (the value below must then name it).
func TestEverySettingSavedFromThePanelIsShownBackAsSaved(t *testing.T) {
	ws := t.TempDir()
	t.Setenv("PROTOTYPER_TEST_KEY", "k")
	d, _ := openTestDesktop(t, cli.DesktopOptions{Workspace: ws, Model: "m", Common: cli.Common{Ollama: "http://127.0.0.1:1"}})
	in := Settings{Workspace: ws, Model: "qwen3:0.6b", OllamaURL: "http://127.0.0.1:2", Think: "low", ContextCap: 8192,
		ContextCapDefault: store.DefaultContextCap, // shown, never saved: always the default
		ToolApproval:      map[string]string{"write_file": "deny"}, FirstByteTimeoutSec: 90, StartOllama: true,
		OllamaBinary: "/opt/ollama/bin/ollama", AlwaysAllow: map[string][]string{ws: {"write_file"}}, CheckpointMaxBytes: 1 << 20,
		MaxAnswerBytes: 16 << 20, Provider: store.ProviderOllama, BaseURL: "http://gpu:8000/v1", APIKeyEnv: "PROTOTYPER_TEST_KEY",
		MCPJSON: `{"mcpServers":{}}`, Theme: store.ThemeDark, KeepAliveMin: 5, LoopRepeats: 4, IgnoreTextToolCalls: true,
		OlderTurns: store.SummarizeNever, Instructions: "Answer in French.",
		CommandRules: map[string][]store.CommandRule{ws: {{Pattern: "go test", Network: true}}}, CommandDeny: []string{"rm -rf /"},
		UnconfinedCommands: true, Sidebar: store.SidebarHidden}
	v := reflect.ValueOf(in)
	for i := range v.NumField() {
		if v.Field(i).IsZero() {
			t.Fatalf("the test's settings leave %s at its zero value: give it one that shows it round trips", v.Type().Field(i).Name)
		}
	}
	if err := d.SaveSettings(in); err != nil {
		t.Fatal(err)
	}
	c, err := d.Config()
	if err != nil {
		t.Fatal(err)
	}
	got := c.Settings
	if got.ToolApproval["write_file"] != "deny" || len(got.ToolApproval) != len(c.Tools) {
		t.Errorf("tool approval %v, want write_file denied among every tool's policy", got.ToolApproval)
	}
	got.ToolApproval = in.ToolApproval // every tool's policy is shown; the one saved is checked above
	if !reflect.DeepEqual(got, in) {
		t.Errorf("shown back\n%+v\nsaved\n%+v", got, in)
	}
}

// TestTheContextCapIsSavedAsTheUserSetItAndNoneStaysNone: the panel is shown no cap when none
// is set (the default beside it), so saving it back stores none; a cap typed equal to the
// default is a cap all the same.
func TestTheContextCapIsSavedAsTheUserSetItAndNoneStaysNone(t *testing.T) {
	d, _ := openTestDesktop(t, cli.DesktopOptions{Workspace: t.TempDir(), Model: "m", Common: cli.Common{Ollama: "http://127.0.0.1:1"}})
	shown, err := d.Config()
	if err != nil {
		t.Fatal(err)
	}
	if shown.ContextCap != 0 || shown.ContextCapDefault != store.DefaultContextCap {
		t.Fatalf("the panel is shown a cap of %d (default %d); want none, and the default beside it", shown.ContextCap, shown.ContextCapDefault)
	}
	if err := d.SaveSettings(shown.Settings); err != nil {
		t.Fatal(err)
	}
	if s, _ := d.db.Settings(); s.ContextCap != 0 {
		t.Errorf("saving the settings as shown stored a cap of %d; want none", s.ContextCap)
	}
	shown.ContextCap = store.DefaultContextCap
	if err := d.SaveSettings(shown.Settings); err != nil {
		t.Fatal(err)
	}
	if s, _ := d.db.Settings(); s.ContextCap != store.DefaultContextCap {
		t.Errorf("a cap of %d was stored as %d", store.DefaultContextCap, s.ContextCap)
	}
	if c, _ := d.Config(); c.ContextCap != store.DefaultContextCap {
		t.Errorf("the panel is shown a cap of %d; want the %d the user set", c.ContextCap, store.DefaultContextCap)
	}
}
