package tests

import (
	"strings"
	"testing"
	"time"

	"prototyper/events"
	"prototyper/internal/ollamatest"
	"prototyper/store"
)

// TestDesktopAQueuedMessageSaysSoInSentenceCase: a message sent while the answer streams is
// marked queued with a sentence as written, not in capitals (a screen reader reads the text as
// it is drawn).
func TestDesktopAQueuedMessageSaysSoInSentenceCase(t *testing.T) {
	slow := pacedProxy(t, ollamatest.Get(t).URL(), 1000, 60*time.Millisecond)
	r := startDesktopRunWith(t, paragraphModel, store.Settings{Think: "on"}, "Write a long answer", withArgs("--ollama", slow))
	r.waitLog(t, events.TextDelta, true, 60*time.Second)
	r.app.typeText("Then make it shorter")
	r.app.key("Return")
	const queued = "Queued: the model reads it at its next step"
	if said := r.app.waitTexts(func(s string) bool { return strings.Contains(s, queued) }, 20*time.Second); len(said) == 0 {
		t.Errorf("the queued message is not marked %q; the window says %q (%s)", queued,
			r.app.texts(func(s string) bool { return strings.Contains(strings.ToLower(s), strings.ToLower(queued)) }), r.app.screenshot("queued-label.png"))
	}
	r.app.key("Escape")
	r.waitLog(t, events.RunFinished, true, 60*time.Second)
}
