package tests

import (
	"encoding/json"
	"testing"
	"time"

	"prototyper/internal/ollamatest"
	"prototyper/store"
)

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
