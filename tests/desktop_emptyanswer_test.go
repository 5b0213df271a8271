package tests

import (
	"strings"
	"testing"
	"time"

	"prototyper/internal/ollamatest"
	"prototyper/store"
)

// emptyModel answers every message with nothing but a line break: an empty answer, also when
// asked again.
var emptyModel = ollamatest.Model{Name: "e2e-empty", Scripts: ollamatest.Scripts{ollamatest.Fallback: {"\n"}}}

// TestDesktopAnEmptyAnswerIsSaidOnce: a model that answers nothing, also when asked again, is
// said to have given an empty answer once, not once per attempt and again at the run's end.
func TestDesktopAnEmptyAnswerIsSaidOnce(t *testing.T) {
	r := startDesktopRunWith(t, emptyModel, store.Settings{}, "Say something")
	r.waitFinished(t, 60*time.Second)
	// each line of the chat that says it (the chat's own text holds them all)
	saysEmpty := func(s string) bool { return strings.HasPrefix(s, "The model gave an empty answer") }
	r.app.waitTexts(saysEmpty, 20*time.Second)
	settle()
	said := r.app.texts(saysEmpty)
	if len(said) != 1 {
		t.Errorf("the window says the answer was empty %d times, want once: %q (%s)", len(said), said, r.app.screenshot("empty-answer.png"))
	}
}
