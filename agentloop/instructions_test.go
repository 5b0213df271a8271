package agentloop

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"prototyper/events"
	"prototyper/store"
)

func TestAgentsMdAndTheSettingsTextReachTheSystemPromptAndShowInTheFirstTurn(t *testing.T) {
	ws := t.TempDir()
	if err := os.WriteFile(filepath.Join(ws, "AGENTS.md"), []byte("Use tabs.\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	m := &fakeModel{turn: func(req ModelRequest) ModelTurn { return answer("ok") }}
	a, db, rec := fakeHarness(t, m, func(c *Config) { c.Workspace = ws })
	if err := db.PutSettings(store.Settings{Instructions: map[string]string{ws: "Answer in French."}}); err != nil {
		t.Fatal(err)
	}
	out := runFake(t, a, "hi")
	if _, err := a.RunOnce(context.Background(), out.ChatID, "again", RunOptions{}); err != nil {
		t.Fatal(err)
	}
	for i, req := range m.reqs {
		sys := req.Messages[0]
		if sys.Role != store.RoleSystem || !strings.HasPrefix(sys.Content, DefaultSystemPrompt) ||
			!strings.Contains(sys.Content, "Use tabs.") || !strings.Contains(sys.Content, "Answer in French.") {
			t.Fatalf("request %d: system prompt %q", i, sys.Content)
		}
		for _, msg := range req.Messages[1:] {
			if msg.Role == store.RoleSystem {
				t.Fatalf("request %d sends the shown instructions as a message: %+v", i, msg)
			}
		}
	}
	msgs, _ := db.Messages(out.ChatID)
	if roles(msgs) != "SUAUA" || msgs[0].Instructions != "AGENTS.md, settings" || !strings.Contains(msgs[0].Content, "Use tabs.") {
		t.Fatalf("stored %q %+v: the first turn shows the instructions once", roles(msgs), msgs[0])
	}
	started := ofType(rec.events(), events.MessageStarted)
	if started[0].Role != store.RoleSystem || started[0].MessageID != msgs[0].ID {
		t.Fatalf("message.started %+v", started[0])
	}
}

func TestTheInstructionsAreCountedInTheBudget(t *testing.T) {
	ws := t.TempDir()
	m := &fakeModel{turn: func(req ModelRequest) ModelTurn { return answer("ok") }}
	a, db, _ := fakeHarness(t, m, func(c *Config) { c.Workspace = ws })
	if err := db.PutSettings(store.Settings{ContextCap: 4096}); err != nil {
		t.Fatal(err)
	}
	before, err := a.Budget(context.Background(), "", "")
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(ws, "AGENTS.md"), []byte(strings.Repeat("Be careful. ", 300)), 0o644); err != nil {
		t.Fatal(err)
	}
	after, _ := a.Budget(context.Background(), "", "")
	if lost := before.MaxTokens - after.MaxTokens; lost < 900 || lost > 1200 {
		t.Fatalf("a 3600-character AGENTS.md took %d tokens of the budget (%d → %d)", lost, before.MaxTokens, after.MaxTokens)
	}
}

func TestALargeAgentsMdIsReadUpToItsLimit(t *testing.T) {
	big := t.TempDir()
	_ = os.WriteFile(filepath.Join(big, "AGENTS.md"), []byte(strings.Repeat("x", maxInstructionBytes+10)), 0o644)
	if in := readInstructions(big, store.Settings{}); len(in.file) > maxInstructionBytes+100 || !strings.Contains(in.file, "only its first 32 KB") {
		t.Fatalf("a large AGENTS.md gave %d bytes", len(in.file))
	}
}
