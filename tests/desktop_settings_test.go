package tests

import (
	"encoding/json"
	"strings"
	"testing"
	"time"

	"prototyper/events"
	"prototyper/internal/ollamatest"
	"prototyper/store"
)

// contextCapField is the start of the settings' context cap field's accessible name.
const contextCapField = "Longest context sent to the model"

// focusField gives the keyboard focus to the one field (not its label) whose accessible name
// begins with prefix, whatever its role: WebKit names a number field's role as it likes.
func (a *desktopApp) focusField(prefix string) {
	a.tb.Helper()
	var found []a11yNode
	var roles []a11yRole
	a.each(func(n a11yNode) {
		if r := a.role(n); strings.HasPrefix(a.name(n), prefix) && r != roleLabel {
			found, roles = append(found, n), append(roles, r)
		}
	})
	if len(found) != 1 {
		a.tb.Fatalf("%d fields named %q… (roles %v), want one", len(found), prefix, roles)
	}
	var ok bool
	if err := a.a11yBus().Object(found[0].Dest, found[0].Path).Call(atspiComponent+".GrabFocus", 0).Store(&ok); err != nil || !ok {
		a.tb.Fatalf("focus %q: %v (done: %v)", prefix, err, ok)
	}
}

// roleLabel is ATSPI_ROLE_LABEL.
const roleLabel a11yRole = 29

// TestDesktopTheSettingsSaveNoContextCapUntilTheUserTypesOne: the settings saved as they
// opened keep no context cap (the context is then chosen from free memory); a cap typed equal
// to the default is saved as a cap.
func TestDesktopTheSettingsSaveNoContextCapUntilTheUserTypesOne(t *testing.T) {
	save := func(t *testing.T, typed string) store.Settings {
		r := startDesktopRunWith(t, writerModel, store.Settings{}, "")
		r.app.key("ctrl+comma")
		r.app.waitFocus(roleComboBox, "Model server", 30*time.Second)
		r.app.focusField(contextCapField)
		if typed != "" {
			r.app.typeText(typed)
		}
		// Enter in the field saves the dialog
		r.app.key("Return")
		return r.savedSettings(t, "e2e-settings-context-cap.png")
	}
	t.Run("nothing typed", func(t *testing.T) {
		if s := save(t, ""); s.ContextCap != 0 {
			t.Errorf("the settings saved as they opened hold a context cap of %d; want none", s.ContextCap)
		}
	})
	t.Run("the default typed", func(t *testing.T) {
		if s := save(t, "16384"); s.ContextCap != store.DefaultContextCap {
			t.Errorf("16384 typed was saved as a cap of %d", s.ContextCap)
		}
	})
	t.Run("a slip of the keyboard", func(t *testing.T) {
		r := startDesktopRunWith(t, writerModel, store.Settings{}, "")
		r.app.key("ctrl+comma")
		r.app.waitFocus(roleComboBox, "Model server", 30*time.Second)
		r.app.focusField(contextCapField)
		r.app.typeText("1638416384")
		r.app.key("Return")
		// the panel stays open and says what to type; nothing is saved
		if !r.app.says("must be between 1,024 and 1,048,576 tokens") {
			t.Error("a context cap of 1638416384 typed and saved: the panel does not say what the cap may be")
		}
		r.app.waitControl(rolePushButton, "Cancel", 5*time.Second)
		_, db := r.finish(t, "e2e-settings-context-cap-slip.png")
		if s, err := db.Settings(); err != nil || s.ContextCap != 0 {
			t.Errorf("a context cap of 1638416384 typed: saved %d (%v); want nothing saved", s.ContextCap, err)
		}
	})
}

// TestDesktopSettingsChooseTheModelServerByKeyboard: Alt+S opens the settings, which show the
// OpenAI-compatible server in use and, as one sentence, the MCP server that could not start;
// the name of a key variable typed there (Tab from the first field, Enter to save) is saved.
func TestDesktopSettingsChooseTheModelServerByKeyboard(t *testing.T) {
	layoutCanMatter(t)
	srv := ollamatest.Get(t)
	servers, _ := json.Marshal(map[string]any{"mcpServers": map[string]any{"broken": map[string]any{"command": "prototyper-no-such-mcp-server"}}})
	r := startDesktopRunWith(t, writerModel, store.Settings{Think: "on", Provider: store.ProviderOpenAI, BaseURL: srv.URL() + "/v1",
		MCPServers: servers}, "")
	r.app.key("ctrl+comma")
	// The first field (the model server) has the focus: the Ollama URL, the server URL, then
	// the key variable. HOME holds something in every environment, as a key variable must.
	r.app.waitFocus(roleComboBox, "Model server", 30*time.Second)
	r.app.key("Tab", "Tab", "Tab")
	r.app.typeText("HOME")
	time.Sleep(time.Second) // painted, for the screenshot
	t.Logf("the settings, the key variable typed: %s", r.app.screenshot("e2e-settings-servers.png"))
	r.app.key("Return")
	s := r.savedSettings(t, "e2e-settings-saved.png")
	if s.APIKeyEnv != "HOME" || s.Provider != store.ProviderOpenAI || s.BaseURL != srv.URL()+"/v1" || string(s.MCPServers) != string(servers) {
		t.Errorf("saved settings = provider %q, base URL %q, key variable %q, MCP %s", s.Provider, s.BaseURL, s.APIKeyEnv, s.MCPServers)
	}
}

// A save the app refuses (an Ollama address with no valid port, Enter pressed in its field at
// the top of the long dialog) is said where the user looks, and the dialog stays open.
func TestDesktopSettingsSayARefusedSaveAtOnce(t *testing.T) {
	r := startDesktopRunWith(t, writerModel, store.Settings{}, "")
	r.app.key("ctrl+comma")
	r.app.waitFocus(roleComboBox, "Model server", 30*time.Second)
	r.app.key("Tab", "ctrl+a") // the Ollama address, after the model server
	r.app.typeText("localhost:abc")
	r.app.key("Return")
	if !r.app.says(`has an invalid port "abc"`) {
		t.Fatalf("the refusal is not said: %s", r.app.screenshot("e2e-settings-refused.png"))
	}
	r.app.screenshot("e2e-settings-refused.png")
	r.app.waitControl(rolePushButton, "Cancel", 5*time.Second) // still open
	r.app.key("Escape")
	r.finish(t, "e2e-settings-refused-end.png")
}

// TestDesktopClosingTheSettingsGivesTheKeysBackToTheMessageBox: after the settings are closed
// (Esc, Cancel, or Save, whose button is disabled while it saves and so loses the focus before
// the dialog goes), what the user types goes into the message box.
func TestDesktopClosingTheSettingsGivesTheKeysBackToTheMessageBox(t *testing.T) {
	layoutCanMatter(t)
	r := startDesktopRunWith(t, writerModel, store.Settings{Think: "on"}, "")
	for i, closeWith := range []string{"Save", "Escape", "Cancel"} {
		r.app.key("ctrl+comma")
		r.app.waitFocus(roleComboBox, "Model server", 30*time.Second)
		if closeWith == "Escape" {
			r.app.key("Escape")
		} else { // as a user does: the button gets the focus, then Enter
			r.app.focus(closeWith)
			r.app.waitFocus(rolePushButton, closeWith, 10*time.Second)
			r.app.key("Return")
		}
		r.app.waitNoControl(rolePushButton, "Save", 20*time.Second)
		typed := []string{"first words", " and more", " and the end"}[i]
		r.app.typeText(typed)
		r.app.waitNamedText("Message", 20*time.Second, typed)
	}
	r.app.key("Return")
	r.waitLogN(t, events.RunFinished, 1, true, 60*time.Second)
	r.finish(t, "settings-closed.png")
}

// TestDesktopClosingTheSettingsBeforeAFirstModelGivesTheKeysToTheOffer: with no model yet the
// message box cannot be used; after the settings close, the first-model offer has the keys
// (its recommended Pull), and Enter there pulls, as it did before the settings opened.
func TestDesktopClosingTheSettingsBeforeAFirstModelGivesTheKeysToTheOffer(t *testing.T) {
	layoutCanMatter(t)
	t.Setenv("OLLAMA_MODELS", t.TempDir()) // no model on the server the app starts
	r := launchOnEmptyAddress(t, desktopBinary(t), ollamaOnPath(t))
	r.waitServer(t)
	r.app.waitForPage("first-model-settings.png", 30*time.Second)
	r.app.focusWindow()
	r.app.waitFocus(rolePushButton, "Pull ", 60*time.Second)
	r.app.key("ctrl+comma")
	r.app.waitFocus(roleComboBox, "Model server", 30*time.Second)
	r.app.key("Escape")
	r.app.waitNoControl(rolePushButton, "Save", 20*time.Second)
	r.app.waitFocus(rolePushButton, "Pull ", 20*time.Second)
	r.app.key("Return")
	r.waitLog(t, events.PullProgress, true, 30*time.Second)
	r.app.screenshot("first-model-settings.png")
}

// TestDesktopTheUnconfinedCommandsCheckboxIsBesideItsWords: in the settings, the words of the
// checkbox that lets commands run without the sandbox start right after the box, as every other
// checkbox's do, not at the far side of the dialog.
func TestDesktopTheUnconfinedCommandsCheckboxIsBesideItsWords(t *testing.T) {
	layoutCanMatter(t)
	r := startDesktopRunWith(t, writerModel, store.Settings{}, "")
	r.app.key("ctrl+comma")
	r.app.waitFocus(roleComboBox, "Model server", 30*time.Second)
	const words = "Run commands without the sandbox where it cannot start"
	// the checkbox's extents take in its label's whole row: its box is as wide as it is high
	bx, _, _, bh := r.app.extents(r.app.waitNode(roleCheckBox, words))
	var text a11yNode
	r.app.each(func(n a11yNode) {
		if r.app.text(n) == words {
			text = n
		}
	})
	if text.Path == "" {
		t.Fatalf("the settings show no text %q", words)
	}
	if x, _, _, _ := r.app.extents(text); x-bx < 0 || x-bx > 2*bh+8 {
		t.Errorf("the checkbox starts at x=%d and its words at x=%d, far from it (%s)", bx, x, r.app.screenshot("settings-unconfined-words.png"))
	}
	r.app.key("Escape")
}
