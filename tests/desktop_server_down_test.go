package tests

import (
	"net"
	"strings"
	"testing"
	"time"

	"prototyper/store"
)

// closedAddress is an address of this machine where nothing listens: a port just freed.
func closedAddress(t *testing.T) string {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := l.Addr().String()
	if err := l.Close(); err != nil {
		t.Fatal(err)
	}
	return addr
}

// TestDesktopAModelServerThatDoesNotAnswerIsNamedAndRetryTakesTheKeys: an OpenAI-compatible
// server saved in the settings that does not answer (Ollama meanwhile running) is the server
// the line above the composer names, with its address; its panel's detail says that nothing
// answers there, never a bare timeout; and the settings closing give the keys to Retry, since
// the composer cannot take them, which keeps them while it checks again. The header names the
// model of the settings without the badges of Ollama's list.
func TestDesktopAModelServerThatDoesNotAnswerIsNamedAndRetryTakesTheKeys(t *testing.T) {
	layoutCanMatter(t)
	dead := "http://" + closedAddress(t) + "/v1"
	r := startDesktopRunWith(t, writerModel, store.Settings{Think: "on"}, "")
	r.app.key("ctrl+comma")
	r.app.waitFocus(roleComboBox, "Model server", 30*time.Second)
	r.app.key("Down")
	if name := r.app.waitControlNamed(roleComboBox, "Model server OpenAI-compatible", 10*time.Second); name == "" {
		t.Fatalf("Down in the model server's field chose no OpenAI-compatible server: %q", r.app.names(roleComboBox))
	}
	r.app.focusField("Server URL")
	r.app.typeSeen(dead)
	r.app.press("Save")
	r.app.waitNoControl(rolePushButton, "Cancel", 30*time.Second)
	r.app.waitControl(rolePushButton, "Retry", 30*time.Second)

	want := "The OpenAI-compatible server at " + dead + " does not answer."
	if !r.app.says(want) {
		t.Errorf("the line above the composer is not %q; the window says %q: %s", want,
			r.app.textsWith("not running"), r.app.screenshot("e2e-server-down-line.png"))
	}
	if wrong := r.app.textsWith("Ollama is not running"); len(wrong) > 0 {
		t.Errorf("with Ollama running and another server chosen, the window says %q", wrong)
	}
	details := r.app.waitTexts(func(s string) bool { return strings.HasPrefix(s, "Details:") }, 20*time.Second)
	if len(details) != 1 || !strings.Contains(details[0], "nothing answers at "+dead) {
		t.Errorf("the panel's detail is %q, want that nothing answers at %s", details, dead)
	}
	r.app.waitFocus(rolePushButton, "Retry", 20*time.Second)
	// the header names the model the next message goes to, without what Ollama said of it
	if wrong := r.app.textsWith("tokens"); len(wrong) > 0 {
		t.Errorf("the header describes the model with another server's list: %q: %s", wrong, r.app.screenshot("e2e-server-down-header.png"))
	}
	if !r.app.says("e2e-writer") {
		t.Errorf("the header no longer names the model of the settings: %q", r.app.names(roleComboBox))
	}
	// Enter retries, and the keys stay on Retry through the check
	r.app.key("Return")
	r.app.waitFocus(rolePushButton, "Retry", 20*time.Second)
	r.finish(t, "e2e-server-down.png")
}
