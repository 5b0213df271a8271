package agentloop

import (
	"testing"

	"prototyper/events"
)

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
