package tests

import (
	"fmt"
	"os"
	"reflect"
	"strings"
	"testing"
	"time"

	"prototyper/store"
)

// ollamaOnlyFields are the starts of the accessible names of the settings' fields that only
// the Ollama provider uses: whether and with which program Prototyper starts Ollama, and how
// long Ollama keeps a model loaded.
var ollamaOnlyFields = []string{"Start Ollama when it is not running", "Ollama program", "Keep the model loaded after an answer"}

// settingsFieldsNamed lists, of prefixes, those a field of the window (not a label) is named by.
func (a *desktopApp) settingsFieldsNamed(prefixes []string) []string {
	var found []string
	a.each(func(n a11yNode) {
		if a.role(n) == roleLabel {
			return
		}
		for _, p := range prefixes {
			if strings.HasPrefix(a.name(n), p) {
				found = append(found, p)
			}
		}
	})
	return found
}

// waitSettingsFields waits until the window shows the fields of all the prefixes (all) or of
// none, and reports whether it does, with those it shows.
func (a *desktopApp) waitSettingsFields(prefixes []string, all bool, timeout time.Duration) (shown []string, ok bool) {
	a.tb.Helper()
	for deadline := time.Now().Add(timeout); time.Now().Before(deadline); time.Sleep(200 * time.Millisecond) {
		if shown = a.settingsFieldsNamed(prefixes); (all && len(shown) == len(prefixes)) || (!all && len(shown) == 0) {
			return shown, true
		}
	}
	return shown, false
}

// TestDesktopTheSettingsShowOllamasFieldsForOllamaAlone: with the settings opened by the
// keyboard, choosing the OpenAI-compatible server (an arrow key in the first field) takes away
// the fields only Ollama uses, and choosing Ollama again brings them back; the Ollama address
// stays, since the model menu pulls models into that Ollama whatever the server.
func TestDesktopTheSettingsShowOllamasFieldsForOllamaAlone(t *testing.T) {
	layoutCanMatter(t)
	r := startDesktopRunWith(t, writerModel, store.Settings{Think: "on"}, "")
	r.app.key("ctrl+comma")
	r.app.waitFocus(roleComboBox, "Model server", 30*time.Second)
	if shown, ok := r.app.waitSettingsFields(ollamaOnlyFields, true, 10*time.Second); !ok {
		t.Fatalf("with Ollama chosen the settings show only %q of %q", shown, ollamaOnlyFields)
	}
	r.app.key("Down")
	if name := r.app.waitControlNamed(roleComboBox, "Model server OpenAI-compatible", 10*time.Second); name == "" {
		t.Fatalf("Down in the model server's field chose no OpenAI-compatible server: %q", r.app.names(roleComboBox))
	}
	if shown, ok := r.app.waitSettingsFields(ollamaOnlyFields, false, 10*time.Second); !ok {
		t.Errorf("with an OpenAI-compatible server chosen the settings still show %q: %s", shown, r.app.screenshot("e2e-settings-openai-fields.png"))
	}
	if len(r.app.settingsFieldsNamed([]string{"Ollama address"})) == 0 {
		t.Error("with an OpenAI-compatible server chosen the Ollama address, where models are pulled, is gone")
	}
	r.app.screenshot("e2e-settings-openai-fields.png")
	r.app.key("Up")
	if name := r.app.waitControlNamed(roleComboBox, "Model server Ollama", 10*time.Second); name == "" {
		t.Fatalf("Up in the model server's field chose no Ollama: %q", r.app.names(roleComboBox))
	}
	if shown, ok := r.app.waitSettingsFields(ollamaOnlyFields, true, 10*time.Second); !ok {
		t.Errorf("with Ollama chosen again the settings show only %q of %q", shown, ollamaOnlyFields)
	}
	r.app.key("Escape")
	r.app.waitNoControl(rolePushButton, "Cancel", 10*time.Second)
	r.finish(t, "e2e-settings-ollama-fields.png")
}

// TestDesktopTheSettingsSavedAsTheyOpenedChangeNothingStored: the settings opened and saved
// without a change (Enter in a field) store every setting as it was, whether the user set every
// one or none; only what the session uses by its flags (folder, model, Ollama address) and
// the folders it remembers are the session's.
func TestDesktopTheSettingsSavedAsTheyOpenedChangeNothingStored(t *testing.T) {
	for name, given := range map[string]store.Settings{
		"none set": {},
		"every one set": {Think: "low", ContextCap: 8192, ToolApproval: map[string]string{"write_file": "deny", "*": "ask"}, AckFallbackMs: 250,
			FirstByteTimeoutSec: 90, ManualOllama: true, OllamaBinary: "/opt/ollama/bin/ollama", CheckpointMaxBytes: 1 << 20,
			MaxAnswerBytes: 16 << 20, AlwaysAllow: map[string][]string{"/elsewhere": {"write_file"}},
			CommandRules: map[string][]store.CommandRule{"/elsewhere": {{Pattern: "go test", Network: true}}}, CommandDeny: []string{"rm -rf /"},
			UnconfinedCommands: true, Instructions: map[string]string{"/elsewhere": "Be brief."}, KeepAliveMin: 5, LoopRepeats: 4,
			OlderTurns: store.SummarizeNever, Provider: store.ProviderOllama, BaseURL: "http://gpu:8000/v1", APIKeyEnv: "HOME",
			MCPServers: []byte(`{"mcpServers":{}}`), Theme: store.ThemeDark, Sidebar: store.SidebarHidden, IgnoreTextToolCalls: true},
	} {
		t.Run(name, func(t *testing.T) {
			r := startDesktopRunWith(t, writerModel, given, "")
			r.app.key("ctrl+comma")
			r.app.waitFocus(roleComboBox, "Model server", 30*time.Second)
			r.app.focusField(contextCapField)
			r.app.key("Return") // Enter in a field saves the dialog
			got := r.savedSettings(t, "e2e-settings-saved-as-opened.png")
			want := given
			want.Workspace, want.DefaultModel, want.OllamaURL, want.RecentFolders = got.Workspace, got.DefaultModel, got.OllamaURL, got.RecentFolders
			if want.AckFallbackMs == 0 { // the window tests' own (newDesktopRun)
				want.AckFallbackMs = got.AckFallbackMs
			}
			if !reflect.DeepEqual(got, want) {
				t.Errorf("saved as they opened, the settings are\n%+v\nwere\n%+v", got, want)
			}
		})
	}
}

// TestDesktopTheSettingsAskNoKeyForAnOllamaOnThisMachine: an Ollama address typed in the
// settings that names this machine (an unspecified or loopback address however written, or
// its own host name) asks for no key; one elsewhere does.
func TestDesktopTheSettingsAskNoKeyForAnOllamaOnThisMachine(t *testing.T) {
	layoutCanMatter(t)
	host, err := os.Hostname()
	if err != nil || host == "" {
		t.Fatalf("this machine's name: %q, %v", host, err)
	}
	r := startDesktopRunWith(t, writerModel, store.Settings{Think: "on"}, "")
	r.app.key("ctrl+comma")
	r.app.waitFocus(roleComboBox, "Model server", 30*time.Second)
	r.app.key("Tab") // the Ollama address
	keyField := []string{"API key variable"}
	for _, tc := range []struct {
		address string
		local   bool
	}{
		{"http://gpu.example.org:11434", false}, // first: the field is there to go
		{"http://[::]:11434", true},
		{"http://localhost.:11434", true},
		{"http://[::1]:11434", true},
		{"http://0.0.0.0:11434", true},
		{"http://" + host + ":11434", true},
	} {
		r.app.key("ctrl+a")
		r.app.typeText(tc.address)
		if _, ok := r.app.waitSettingsFields(keyField, !tc.local, 10*time.Second); !ok {
			t.Errorf("Ollama at %s: the key field is shown %v, want %v", tc.address, tc.local, !tc.local)
		}
	}
	r.app.key("Escape") // with the address edited, Esc asks before it discards
	r.app.press("Discard changes")
	r.app.waitNoControl(rolePushButton, "Save", 10*time.Second)
	r.finish(t, "e2e-settings-local-ollama.png")
}

// TestDesktopTheSettingsKeepWhatWasTypedWhenTheUserClicksBesideThem: its fields left empty are
// named by their labels alone (no placeholder read as a value); a click beside the
// settings with an edit made (on the backdrop over the list of chats) keeps the dialog and the
// text typed, and says that the changes are not saved; Esc then goes back to the edits, Esc
// again asks again, and "Discard changes" closes the dialog without saving.
func TestDesktopTheSettingsKeepWhatWasTypedWhenTheUserClicksBesideThem(t *testing.T) {
	layoutCanMatter(t)
	r := startDesktopRunWith(t, writerModel, store.Settings{Think: "on"}, "")
	r.app.key("ctrl+comma")
	r.app.waitFocus(roleComboBox, "Model server", 30*time.Second)
	// the fields left empty are named by their label alone, the default written as the header writes it
	for _, want := range []string{contextCapField + ", in tokens (empty: what this machine's free memory holds, at most 16K)",
		"Stop a run when the model makes the same call this many times in a row (empty: 3)"} {
		var names []string
		r.app.each(func(n a11yNode) {
			if name := r.app.name(n); r.app.role(n) != roleLabel && strings.HasPrefix(name, want[:30]) {
				names = append(names, name)
			}
		})
		if len(names) != 1 || strings.TrimSpace(names[0]) != want {
			t.Errorf("the field is named %q; want %q", names, want)
		}
	}
	r.app.focusField("Instructions for the model")
	const typed = "Always write tests first."
	r.app.typeText(typed)
	if !r.app.says(typed) {
		t.Fatalf("the instructions typed are not in the field: %s", r.app.screenshot("e2e-settings-click-beside.png"))
	}
	r.app.clickBeside(r.app.waitNode(roleDialog, "Settings"))
	r.app.waitControl(rolePushButton, "Keep editing", 20*time.Second)
	if !r.app.says("Your changes are not saved") || len(r.app.textsWith(typed)) == 0 {
		t.Errorf("after a click beside the settings, they say no unsaved changes or lost the text typed: %s", r.app.screenshot("e2e-settings-click-beside.png"))
	}
	r.app.screenshot("e2e-settings-click-beside.png")
	r.app.key("Escape")
	r.app.waitNoControl(rolePushButton, "Keep editing", 10*time.Second)
	r.app.waitControl(rolePushButton, "Cancel", 10*time.Second)
	r.app.key("Escape")
	r.app.press("Discard changes")
	r.app.waitNoControl(rolePushButton, "Save", 10*time.Second)
	_, db := r.finish(t, "e2e-settings-click-beside-discarded.png")
	if s, err := db.Settings(); err != nil || len(s.Instructions) != 0 {
		t.Errorf("the changes discarded were saved: %q, %v", s.Instructions, err)
	}
}

// TestDesktopTheSettingsRefuseServersOutsideMCPServersAndDropARefusalWithItsServer: MCP
// servers typed without the "mcpServers" wrapper are refused with a sentence saying where they
// go (they were saved as no servers); a refusal about the key of an OpenAI-compatible server
// goes away once Ollama is chosen again, with the key's field.
func TestDesktopTheSettingsRefuseServersOutsideMCPServersAndDropARefusalWithItsServer(t *testing.T) {
	r := startDesktopRunWith(t, writerModel, store.Settings{Think: "on"}, "")
	r.app.key("ctrl+comma")
	r.app.waitFocus(roleComboBox, "Model server", 30*time.Second)
	r.app.focusField("Servers of the settings")
	r.app.typeSeen(`{"everything": {"command": "npx"}}`)
	r.app.press("Save")
	if !r.app.says(`No server was found in the MCP servers of the settings (they hold "everything"): the servers go under "mcpServers"`) {
		t.Fatalf("servers outside mcpServers are not refused: %s", r.app.screenshot("e2e-settings-mcp-unwrapped.png"))
	}
	r.app.screenshot("e2e-settings-mcp-unwrapped.png")
	r.app.focusField("Servers of the settings")
	r.app.key("ctrl+a", "BackSpace")
	if !r.app.waitNoText(`{"everything"`, 20*time.Second) {
		t.Fatalf("the servers typed are not erased: %s", r.app.screenshot("e2e-settings-mcp-erased.png"))
	}

	r.app.focusField("Model server")
	r.app.key("Down")
	r.app.waitControlNamed(roleComboBox, "Model server OpenAI-compatible", 10*time.Second)
	r.app.focusField("Server URL")
	r.app.typeSeen("http://127.0.0.1:9/v1")
	r.app.focusField("API key variable")
	r.app.typeSeen("PROTOTYPER_TEST_NO_SUCH_KEY")
	r.app.press("Save")
	const refusal = "The API key variable is not set"
	if !r.app.says(refusal) {
		t.Fatalf("an unset key variable is not refused: %s", r.app.screenshot("e2e-settings-key-refused.png"))
	}
	r.app.focusField("Model server")
	r.app.key("Up")
	r.app.waitControlNamed(roleComboBox, "Model server Ollama", 10*time.Second)
	if !r.app.waitNoText(refusal, 10*time.Second) {
		t.Fatalf("with Ollama chosen again the key's refusal is still shown: %s", r.app.screenshot("e2e-settings-key-refusal-kept.png"))
	}
	r.app.key("Escape")
	r.app.press("Discard changes")
	r.app.waitNoControl(rolePushButton, "Save", 10*time.Second)
	r.finish(t, "e2e-settings-refusals.png")
}

// clickBeside clicks the window halfway between its left edge and n's, at n's middle height:
// the backdrop beside a dialog, found where the window draws it (fonts and text scale move it).
func (a *desktopApp) clickBeside(n a11yNode) {
	a.tb.Helper()
	x, y, _, h := a.extents(n)
	if x < 2 {
		a.tb.Fatalf("%s fills the window's width: there is nothing beside it to click (%s)", a.name(n), a.screenshot("click-beside.png"))
	}
	if _, err := a.xdotool("mousemove", "--window", a.window, fmt.Sprint(x/2), fmt.Sprint(y+h/2), "click", "1"); err != nil {
		a.tb.Fatal(err)
	}
}
