package tests

import (
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

// waitSettingsFields waits until the fields of prefixes the window shows are want (all of
// them, or none), and says which it shows otherwise.
func (a *desktopApp) waitSettingsFields(prefixes []string, all bool, timeout time.Duration) []string {
	a.tb.Helper()
	var found []string
	for deadline := time.Now().Add(timeout); time.Now().Before(deadline); time.Sleep(200 * time.Millisecond) {
		if found = a.settingsFieldsNamed(prefixes); (all && len(found) == len(prefixes)) || (!all && len(found) == 0) {
			return nil
		}
	}
	return found
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
	if missing := r.app.waitSettingsFields(ollamaOnlyFields, true, 10*time.Second); missing != nil {
		t.Fatalf("with Ollama chosen the settings show only %q of %q", missing, ollamaOnlyFields)
	}
	r.app.key("Down")
	if name := r.app.waitControlNamed(roleComboBox, "Model server OpenAI-compatible", 10*time.Second); name == "" {
		t.Fatalf("Down in the model server's field chose no OpenAI-compatible server: %q", r.app.names(roleComboBox))
	}
	if shown := r.app.waitSettingsFields(ollamaOnlyFields, false, 10*time.Second); shown != nil {
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
	if missing := r.app.waitSettingsFields(ollamaOnlyFields, true, 10*time.Second); missing != nil {
		t.Errorf("with Ollama chosen again the settings show only %q of %q", missing, ollamaOnlyFields)
	}
	r.app.key("Escape")
	r.app.waitNoControl(rolePushButton, "Cancel", 10*time.Second)
	r.finish(t, "e2e-settings-ollama-fields.png")
}
