package tests

import (
	"regexp"
	"testing"
	"time"

	"prototyper/events"
	"prototyper/store"
)

// TestDesktopTheGaugeShowsTheLastAnswersPromptAndAnswerSpeeds: beside the context gauge, the
// window shows how long the last answer's first token took, and how fast the server read the
// last prompt and wrote the last answer.
func TestDesktopTheGaugeShowsTheLastAnswersPromptAndAnswerSpeeds(t *testing.T) {
	r := startDesktopRunWith(t, chattyModel, store.Settings{}, "A question")
	r.waitLogN(t, events.RunFinished, 1, true, 60*time.Second)
	speeds := regexp.MustCompile(`first token \d+(\.\d)? m?s · prompt \d+ tok/s · answer \d+ tok/s`)
	said := r.app.waitTexts(speeds.MatchString, 20*time.Second)
	shot := r.app.screenshot("gauge-speeds.png")
	if len(said) == 0 {
		t.Errorf("beside the gauge: %q; want the time to first token and the prompt's and the answer's speeds (%s)", said, shot)
	}
}
