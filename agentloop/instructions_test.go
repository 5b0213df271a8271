package agentloop

import (
	"context"
	"strings"
	"testing"

	"prototyper/events"
	"prototyper/model"
	"prototyper/store"
)

func TestAgentsMdAndTheSettingsTextReachTheSystemPromptAndShowInTheFirstTurn(t *testing.T) {
	ws := t.TempDir()
	writeFile(t, ws, "AGENTS.md", "Use tabs.\n")
	m := &fakeModel{turn: func(req model.Request) model.Turn { return answer("ok") }}
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
	m := &fakeModel{turn: func(req model.Request) model.Turn { return answer("ok") }}
	a, db, _ := fakeHarness(t, m, func(c *Config) { c.Workspace = ws })
	if err := db.PutSettings(store.Settings{ContextCap: 4096}); err != nil {
		t.Fatal(err)
	}
	before, err := a.Budget(context.Background(), "", "")
	if err != nil {
		t.Fatal(err)
	}
	writeFile(t, ws, "AGENTS.md", strings.Repeat("Be careful. ", 300))
	after, _ := a.Budget(context.Background(), "", "")
	if lost := before.MaxTokens - after.MaxTokens; lost < 900 || lost > 1200 {
		t.Fatalf("a 3600-character AGENTS.md took %d tokens of the budget (%d → %d)", lost, before.MaxTokens, after.MaxTokens)
	}
}

func TestAnAgentsMdOverItsLimitIsRefusedWithASentence(t *testing.T) {
	ws := t.TempDir()
	writeFile(t, ws, "AGENTS.md", strings.Repeat("x", maxInstructionBytes+10))
	a, _, _ := fakeHarness(t, &fakeModel{turn: func(model.Request) model.Turn { return answer("ok") }}, nil)
	in := a.readInstructions(t.Context(), ws, store.Settings{})
	if in.file != "" || in.refused != "AGENTS.md was not read, so the model runs without it: it is over the 32 KB instructions may take; shorten it" {
		t.Fatalf("a large AGENTS.md gave %d bytes and %q", len(in.file), in.refused)
	}
	writeFile(t, ws, "AGENTS.md", strings.Repeat("x", maxInstructionBytes))
	if in := a.readInstructions(t.Context(), ws, store.Settings{}); len(in.file) != maxInstructionBytes || in.refused != "" {
		t.Fatalf("an AGENTS.md of the limit gave %d bytes and %q", len(in.file), in.refused)
	}
}

func TestAgentsMdReachesTheRealServersPrompt(t *testing.T) {
	h := newHarness(t, harnessOptions{model: "plain"})
	// the scripted model's vocabulary has no words: each byte of the instructions is a token
	instructions := strings.Repeat("Indent with tabs. ", 40)
	writeFile(t, h.workspace, "AGENTS.md", instructions)
	out := h.runOnce(t, "hi", RunOptions{Think: "off"})
	if out.StopReason != events.StopCompleted {
		t.Fatalf("stop %q; events %s", out.StopReason, summary(h.rec.events()))
	}
	done := ofType(h.rec.events(), events.MessageCompleted)
	if u := done[len(done)-1].Usage; u.PromptTokens < len(instructions) {
		t.Fatalf("the server evaluated %d prompt tokens; the %d bytes of AGENTS.md did not reach it", u.PromptTokens, len(instructions))
	}
	if msgs := h.messages(t, out.ChatID); roles(msgs) != "SUA" || msgs[2].Content != "Just text." {
		t.Fatalf("messages %q: the shown instructions must not change what the model answers", roles(msgs))
	}
}
