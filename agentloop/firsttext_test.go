package agentloop

import (
	"errors"
	"sync"
	"testing"

	"prototyper/events"
	"prototyper/store"
)

// The answer's start and its first text go to the window before its message is first
// written: the window shows the text without waiting for the disk, and the message is stored
// whole by the end.
func TestTheAnswersStartAndFirstTextGoOutBeforeItsMessageIsFirstWritten(t *testing.T) {
	var db *store.DB
	var mu sync.Mutex
	var written []string // for message.started and the first text.delta: what the store held then
	h := newHarness(t, harnessOptions{model: "plain", cfg: func(c *Config) {
		db = c.Store.(*store.DB)
		rec := c.Emitter
		texts := 0
		c.Emitter = EmitterFunc(func(e events.Event) {
			first := e.Type == events.MessageStarted && e.Role == store.RoleAssistant
			if e.Type == events.TextDelta {
				texts++
				first = texts == 1
			}
			if first {
				_, err := db.Message(e.ChatID, e.MessageID)
				mu.Lock()
				switch {
				case errors.Is(err, store.ErrNotFound):
					written = append(written, string(e.Type)+": not yet written")
				case err != nil:
					written = append(written, string(e.Type)+": "+err.Error())
				default:
					written = append(written, string(e.Type)+": already written")
				}
				mu.Unlock()
			}
			rec.Emit(e)
		})
	}})
	out := h.runCompleted(t, "Say something.")
	mu.Lock()
	got := written
	mu.Unlock()
	want := []string{"message.started: not yet written", "text.delta: not yet written"}
	if len(got) != 2 || got[0] != want[0] || got[1] != want[1] {
		t.Errorf("as the answer started: %q, want %q", got, want)
	}
	msgs := h.messages(t, out.ChatID)
	if len(msgs) != 2 || msgs[1].Role != store.RoleAssistant || msgs[1].Content != "Just text." || !msgs[1].Complete {
		t.Errorf("stored = %+v, want the whole answer after the user's message", msgs)
	}
}
