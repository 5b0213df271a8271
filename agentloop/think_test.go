package agentloop

import (
	"context"
	"testing"
	"time"

	"prototyper/events"
)

// runThink runs prompt on model with the given think level, as given (no default).
func runThink(t *testing.T, model, think string) (*harness, Outcome) {
	t.Helper()
	h := newHarness(t, harnessOptions{model: model, approve: ApproveAuto})
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	out, err := h.agent.RunOnce(ctx, "", "hi", RunOptions{Think: think})
	if err != nil {
		t.Fatalf("RunOnce: %v\nevents: %s", err, summary(h.rec.events()))
	}
	return h, out
}

func TestThinkingStreamsByDefaultOnAModelThatCanThink(t *testing.T) {
	h, out := runThink(t, "scripted", "")
	if out.StopReason != events.StopCompleted && out.StopReason != events.StopMaxSteps {
		t.Fatalf("stop reason %q", out.StopReason)
	}
	var thinking string
	for _, e := range h.rec.events() {
		if e.Type == events.ThinkingDelta {
			thinking += e.Text
		}
	}
	if thinking == "" {
		t.Fatalf("no thinking.delta with the think level unset; events: %s", summary(h.rec.events()))
	}
}

func TestThinkOnIsNotAskedOfAModelThatCannotThink(t *testing.T) {
	h, out := runThink(t, "plain", "on")
	if out.StopReason != events.StopCompleted {
		t.Fatalf("stop reason %q, want completed (the server refuses think:true for this model); events: %s",
			out.StopReason, summary(h.rec.events()))
	}
	msgs := h.messages(t, out.ChatID)
	if last := msgs[len(msgs)-1]; last.Content != "Just text." {
		t.Errorf("answer = %q", last.Content)
	}
}

func TestStrayThinkTagsOfAModelThatCannotThinkBecomeReasoningOnTheRealServer(t *testing.T) {
	h := newHarness(t, harnessOptions{model: "stray"})
	out := h.runOnce(t, "hi", RunOptions{Think: "off"})
	evs := h.rec.events()
	if th, tx := textDeltas(evs, events.ThinkingDelta), textDeltas(evs, events.TextDelta); th != "Hidden plan." || tx != "Visible answer." {
		t.Fatalf("thinking %q, text %q; events %s", th, tx, summary(evs))
	}
	msgs := h.messages(t, out.ChatID)
	if last := msgs[len(msgs)-1]; last.Content != "Visible answer." || last.Thinking != "Hidden plan." {
		t.Fatalf("stored %+v", last)
	}
}
