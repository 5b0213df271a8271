package tests

import (
	"bufio"
	"encoding/json"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"prototyper/events"
	"prototyper/internal/ollamatest"
	"prototyper/store"
)

// TestRunJSONSaysEachAnswersTimeToFirstTokenAndTheRunsFirst: `run --json` carries, beside the
// prompt's and the answer's speeds, the wait for each answer's first token, and the run's
// usage says its first answer's.
func TestRunJSONSaysEachAnswersTimeToFirstTokenAndTheRunsFirst(t *testing.T) {
	db, ws := filepath.Join(t.TempDir(), "p.db"), t.TempDir()
	out, errOut, code := cliRun(t, "run", "--ollama", ollamatest.Get(t).URL(), "--db", db, "--workspace", ws,
		"--model", chattyModel.Name, "--json", "Say something")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	_, answers := completedUsages(t, out)
	var run *events.Usage
	sc := bufio.NewScanner(strings.NewReader(out))
	sc.Buffer(make([]byte, 1<<20), 1<<24)
	for sc.Scan() {
		var e events.Event
		if json.Unmarshal(sc.Bytes(), &e) == nil && e.Type == events.RunFinished {
			run = e.Usage
		}
	}
	if len(answers) == 0 || run == nil {
		t.Fatalf("no message.completed or run.finished with usage in run --json:\n%s", out)
	}
	for _, u := range answers {
		if u.FirstTokenMs <= 0 || u.PromptTokensPerSec <= 0 || u.TokensPerSec <= 0 {
			t.Errorf("usage %+v: want the time to first token beside the prompt's and the answer's speeds", u)
		}
	}
	if run.FirstTokenMs != answers[0].FirstTokenMs {
		t.Errorf("run.finished says %d ms to the first token; want its first answer's, %d ms", run.FirstTokenMs, answers[0].FirstTokenMs)
	}
	t.Logf("first token after %d ms, prompt %.0f tok/s, answer %.0f tok/s", answers[0].FirstTokenMs, answers[0].PromptTokensPerSec, answers[0].TokensPerSec)
}

// TestDesktopTheGaugeShowsTheLastAnswersPromptAndAnswerSpeeds: beside the context gauge, the
// window shows how long the last answer's first token took, and how fast the server read the
// last prompt and wrote the last answer.
func TestDesktopTheGaugeShowsTheLastAnswersPromptAndAnswerSpeeds(t *testing.T) {
	r := startDesktopRunWith(t, chattyModel, store.Settings{}, "A question")
	r.waitLogN(t, events.RunFinished, 1, true, 60*time.Second)
	// speeds as a person reads them: thousands separated ("29,207 tok/s"), never "29207"
	speeds := regexp.MustCompile(`first token \d+(\.\d)? m?s · prompt \d{1,3}(,\d{3})*(\.\d)? tok/s · answer \d{1,3}(,\d{3})*(\.\d)? tok/s`)
	said := r.app.waitTexts(speeds.MatchString, 20*time.Second)
	shot := r.app.screenshot("gauge-speeds.png")
	if len(said) == 0 {
		t.Errorf("beside the gauge: %q; want the time to first token and the prompt's and the answer's speeds (%s)", said, shot)
	}
}
