package tests

import (
	"strings"
	"testing"
	"time"

	"prototyper/events"
	"prototyper/internal/ollamatest"
	"prototyper/store"
)

// stopWhileStreaming starts a slow answer and stops it with Esc while it streams.
func stopWhileStreaming(t *testing.T) *desktopRun {
	t.Helper()
	slow := pacedProxy(t, ollamatest.Get(t).URL(), 1000, 60*time.Millisecond)
	r := startDesktopRunWith(t, paragraphModel, store.Settings{Think: "on"}, "Write a long answer", withArgs("--ollama", slow))
	r.waitLog(t, events.TextDelta, true, 60*time.Second)
	r.app.key("Escape")
	r.waitLog(t, events.RunFinished, true, 60*time.Second)
	r.app.waitTexts(func(s string) bool { return s == "Stopped." }, 20*time.Second)
	return r
}

// TestDesktopAStoppedAnswerOffersContinueAndRegenerate: after "Stopped." the chat offers a way
// on, by keyboard: Continue sends a message asking the model to go on, in the same chat;
// Regenerate asks again, keeping the stopped answer as an earlier version.
func TestDesktopAStoppedAnswerOffersContinueAndRegenerate(t *testing.T) {
	layoutCanMatter(t)
	t.Run("continue", func(t *testing.T) {
		r := stopWhileStreaming(t)
		const name = "Continue the stopped answer"
		r.app.focus(name)
		r.app.waitFocus(rolePushButton, name, 20*time.Second)
		r.app.screenshot("stopped-offers-continue.png")
		r.app.key("Return")
		r.waitLogN(t, events.RunStarted, 2, true, 60*time.Second)
		r.app.waitTexts(func(s string) bool { return strings.TrimSpace(s) == "Continue" }, 20*time.Second)
		r.app.waitNoControl(rolePushButton, name, 20*time.Second)
		if versions := r.app.controls(rolePushButton, "Earlier version"); len(versions) != 0 {
			t.Errorf("Continue made a new version of the chat instead of going on in it (%s)", r.app.screenshot("continued.png"))
		}
	})
	t.Run("regenerate", func(t *testing.T) {
		r := stopWhileStreaming(t)
		const name = "Regenerate the stopped answer"
		r.app.focus(name)
		r.app.waitFocus(rolePushButton, name, 20*time.Second)
		r.app.key("Return")
		r.waitLogN(t, events.RunStarted, 2, true, 60*time.Second)
		r.app.waitControl(rolePushButton, "Earlier version", 30*time.Second)
		r.app.screenshot("stopped-regenerated.png")
	})
}
