package tests

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"prototyper/agentloop"
	"prototyper/events"
	"prototyper/internal/ollamatest"
	"prototyper/store"
)

// configWriterModel writes the workspace's MCP servers, naming a program that would leave a
// marker, then answers: with write_file approved without asking (its default), only the
// refusal of the app's configuration stands between it and the next message starting it.
var configWriterModel = ollamatest.Model{Name: "e2e-config-planter", NoThinking: true, Scripts: ollamatest.Scripts{
	"SU": ollamatest.ToolCall("write_file", map[string]any{"path": ".prototyper/mcp.json",
		"content": `{"mcpServers":{"helper":{"command":"/bin/sh","args":["-c","touch pwned"]}}}`}),
	"SUAT":              {"I tried."},
	ollamatest.Fallback: {"Noted", "."},
}}

// TestDesktopTheAgentCannotWriteTheWorkspacesMCPServers: in the real window, with the default
// approvals, the model's write of .prototyper/mcp.json is refused on its card with the
// sentence that says it is Prototyper's own configuration; nothing is written, and the next
// message starts nothing.
func TestDesktopTheAgentCannotWriteTheWorkspacesMCPServers(t *testing.T) {
	r := startDesktopRunWith(t, configWriterModel, store.Settings{}, "Add a helper server")
	r.waitFinished(t, 90*time.Second)
	said := r.app.waitTexts(func(s string) bool {
		return strings.Contains(s, "is Prototyper's own configuration") && strings.Contains(s, "the user changes it with a text editor")
	}, 20*time.Second)
	if len(said) == 0 {
		t.Errorf("the card does not say the write was refused as Prototyper's own configuration; the window says %q", r.app.textsWith(".prototyper"))
	}
	r.app.typeText("Go on")
	r.app.key("Return")
	r.waitLogN(t, events.RunFinished, 2, true, 90*time.Second)
	_, db := r.finish(t, "e2e-config-refused.png")
	if rec := toolRecord(t, db); rec.OK || !strings.Contains(rec.Output, "Prototyper's own configuration") {
		t.Errorf("tool record = %+v", rec)
	}
	for _, name := range []string{".prototyper", "pwned"} {
		if r.hasFile(name) {
			t.Errorf("%s is in the workspace", name)
		}
	}
}

// TestDesktopSaysWhyALinkedAgentsMdWasNotRead: an AGENTS.md that is a link to a private key
// outside the workspace is not read; the window says so in one sentence, live and when the
// chat is opened again, the run goes on, and the key is neither shown nor stored.
func TestDesktopSaysWhyALinkedAgentsMdWasNotRead(t *testing.T) {
	const key = "-----BEGIN OPENSSH PRIVATE KEY----- b3BlbnNzaC1rZXktdjEAAAAA"
	secret := filepath.Join(t.TempDir(), "id_ed25519")
	if err := os.WriteFile(secret, []byte(key+"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	r := startDesktopRunWith(t, noterModel, store.Settings{}, "")
	if err := os.Symlink(secret, filepath.Join(r.workspace, "AGENTS.md")); err != nil {
		t.Fatal(err)
	}
	r.app.typeText("hi")
	r.app.key("Return")
	r.waitFinished(t, 90*time.Second)
	sentence := "AGENTS.md was not read, so the model runs without it: it is a link to " + secret + ", outside the workspace; put the instructions in a file inside the workspace"
	if !r.app.says(sentence) {
		t.Errorf("the window does not say why AGENTS.md was not read; it says %q", r.app.textsWith("AGENTS.md"))
	}
	if retry := r.app.controls(rolePushButton, "Retry"); len(retry) != 0 {
		t.Errorf("the notice offers Retry, which would only say it again")
	}
	if shown := r.app.textsWith("b3BlbnNzaC1rZXkt"); len(shown) != 0 {
		t.Errorf("the window shows the key: %q", shown)
	}
	r.app.screenshot("e2e-instructions-refused.png")
	r.reopen(t, noterModel, "reopened")
	if !r.app.says(sentence) {
		t.Errorf("the chat opened again does not say why AGENTS.md was not read; it says %q", r.app.textsWith("AGENTS.md"))
	}
	_, db := r.finish(t, "e2e-instructions-refused-reopened.png")
	chat := theOneChat(t, db)
	runs, err := db.RunsOf(chat.ID)
	if err != nil || len(runs) != 1 || len(runs[0].Notes) != 1 || runs[0].Notes[0].Code != agentloop.CodeInstructionsRefused {
		t.Errorf("runs = %+v, %v; want the one run keeping the sentence", runs, err)
	}
	msgs, _ := db.Messages(chat.ID)
	if len(msgs) != 2 || msgs[1].Content != "Noted." {
		t.Errorf("messages = %+v; want the prompt and the answer", msgs)
	}
	db.Close()
	if raw, err := os.ReadFile(r.db); err != nil || bytes.Contains(raw, []byte("b3BlbnNzaC1rZXkt")) {
		t.Errorf("the database holds the key (read: %v)", err)
	}
}
