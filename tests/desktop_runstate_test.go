package tests

import (
	"strings"
	"testing"
	"time"

	"prototyper/events"
	"prototyper/internal/ollamatest"
	"prototyper/store"
)

// TestDesktopTheHeaderSaysThinkingWhileTheThoughtStreams: while the model's thought streams
// (slowly, behind a paced proxy) the chat says "Thinking…", and the header says the same,
// never "Answering…" above it.
func TestDesktopTheHeaderSaysThinkingWhileTheThoughtStreams(t *testing.T) {
	layoutCanMatter(t)
	slow := pacedProxy(t, ollamatest.Get(t).URL(), 1000, 3*time.Second)
	r := startDesktopRunWith(t, paragraphModel, store.Settings{Think: "on"}, "Explain it", withArgs("--ollama", slow))
	r.waitLog(t, events.ThinkingDelta, true, 90*time.Second)
	seen := 0
	for deadline := time.Now().Add(60 * time.Second); time.Now().Before(deadline); time.Sleep(100 * time.Millisecond) {
		said := r.app.texts(func(s string) bool { return strings.Contains(s, "Thinking…") || strings.Contains(s, "Answering…") })
		answered := false
		for _, e := range readBridgeLog(t, r.bridgeLog) {
			for _, ev := range e.Events {
				answered = answered || ev.Type == events.TextDelta
			}
		}
		if answered {
			break // the answer began: what was said before it is what counts
		}
		thinking, answering := false, false
		for _, s := range said {
			thinking = thinking || strings.Contains(s, "Thinking…")
			answering = answering || strings.Contains(s, "Answering…")
		}
		if !thinking {
			continue
		}
		seen++
		if answering {
			t.Fatalf("while the thought streams the window says %q (%s)", said, r.app.screenshot("header-answering-while-thinking.png"))
		}
		if seen == 1 {
			r.app.screenshot("header-thinking.png")
		}
	}
	if seen == 0 {
		t.Fatal("the window never said that the model was thinking")
	}
}
