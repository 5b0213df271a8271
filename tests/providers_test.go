package tests

import (
	"strings"
	"testing"
	"time"

	"prototyper/events"
	"prototyper/internal/ollamatest"
	"prototyper/store"
)

// provider is the API through which a scenario reaches the real server: Ollama's native
// /api, or its OpenAI-compatible /v1 (the client any vLLM, llama.cpp or LM Studio server
// gets). The scripted models are the same, and so must be everything a user sees.
type provider string

// providers are the APIs every scenario of the model client runs through.
var providers = []provider{store.ProviderOllama, store.ProviderOpenAI}

// args are the flags that point `prototyper run` or the window at srv through p.
func (p provider) args(srv *ollamatest.Server) []string {
	if p == store.ProviderOpenAI {
		return []string{"--provider", store.ProviderOpenAI, "--base-url", srv.URL() + "/v1"}
	}
	return []string{"--ollama", srv.URL()}
}

// window is what the window's launch adds to reach the shared server through p.
func (p provider) window(t *testing.T) launchExtra {
	return withArgs(p.args(ollamatest.Get(t))...)
}

// eachProvider runs scenario once per provider, as a subtest named after it.
func eachProvider(t *testing.T, scenario func(t *testing.T, p provider)) {
	for _, p := range providers {
		t.Run(string(p), func(t *testing.T) { scenario(t, p) })
	}
}

// TestDesktopAnAnswerTheServerCutsOffKeepsItsThinkingAndWhatArrived: the model thinks,
// begins its answer, and the server ends the stream before the answer's end. The window
// painted the thinking before the answer and the error with its Retry; the store keeps the
// thinking and the partial answer, incomplete, and the run ended as an error.
func TestDesktopAnAnswerTheServerCutsOffKeepsItsThinkingAndWhatArrived(t *testing.T) {
	eachProvider(t, func(t *testing.T, p provider) {
		r := startDesktopRunWith(t, cutModel, store.Settings{Think: "on"}, "Explain it", p.window(t))
		lines := r.waitFinished(t, 90*time.Second)
		var order []events.Type
		for _, l := range lines {
			for _, e := range l.Events {
				if e.Type == events.ThinkingDelta || e.Type == events.TextDelta || e.Type == events.Error {
					order = append(order, e.Type)
				}
			}
		}
		if len(order) < 3 || order[0] != events.ThinkingDelta || order[len(order)-1] != events.Error {
			t.Errorf("thinking, answer and error sent in the order %v; want the thinking first and the error last", order)
		}
		r.app.waitControl(rolePushButton, "Retry", 20*time.Second) // the error's notice, with what to do
		shot, db := r.finish(t, "e2e-cut-"+string(p)+".png")
		t.Logf("screenshot after the run: %s", shot)
		chat := theOneChat(t, db)
		msgs, err := db.Messages(chat.ID)
		if err != nil || len(msgs) != 2 {
			t.Fatalf("messages = %+v, %v; want the prompt and the partial answer", msgs, err)
		}
		answer := msgs[1]
		if answer.Complete || answer.Thinking != strings.Join(cutThinking, "") ||
			!strings.HasPrefix(answer.Content, strings.Join(cutAnswer, "")) || strings.Contains(answer.Content, "<think>") {
			t.Errorf("stored answer: complete %v, thinking %q, content %q; want the thinking and the partial answer, incomplete",
				answer.Complete, answer.Thinking, answer.Content)
		}
		if runs, err := db.RunsOf(chat.ID); err != nil || len(runs) != 1 || runs[0].StopReason != events.StopError {
			t.Errorf("runs = %+v, %v; want the one run, ended by the error", runs, err)
		}
	})
}
