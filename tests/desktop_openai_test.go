package tests

import (
	"strings"
	"testing"
	"time"

	"prototyper/internal/ollamatest"
	"prototyper/store"
)

// TestDesktopEndToEndOverTheOpenAICompatibleAPI is the native end-to-end scenario with the
// OpenAI-compatible provider chosen in the settings (Ollama's own /v1 serving the scripted
// model): the thinking, the card seen running before its result, the file, the answer
// without the thinking's tags.
func TestDesktopEndToEndOverTheOpenAICompatibleAPI(t *testing.T) {
	srv := ollamatest.Get(t)
	r := startDesktopRunWith(t, writerModel, store.Settings{Think: "on", Provider: store.ProviderOpenAI, BaseURL: srv.URL() + "/v1"},
		"Write hello.txt with a greeting")
	lines := r.waitFinished(t, 90*time.Second)
	r.wantWritten(t, "hello.txt", "hello from Prototyper\n")
	if ids := assertEveryCallPaintedRunningBeforeItsResult(t, lines); len(ids) != 1 {
		t.Errorf("tool results sent: %v, want one (write_file)", ids)
	}
	shot, db := r.finish(t, "e2e-openai.png")
	t.Logf("screenshot after the run: %s", shot)
	msgs, err := db.Messages(theOneChat(t, db).ID)
	if err != nil || len(msgs) != 4 {
		t.Fatalf("messages = %+v, %v", msgs, err)
	}
	if msgs[1].Thinking != "The user wants a file. I should write hello.txt." || strings.Contains(msgs[1].Content+msgs[3].Content, "<think>") {
		t.Errorf("first answer %+v: want the thinking apart from the content", msgs[1])
	}
	if !msgs[3].Complete || !strings.Contains(msgs[3].Content, "I wrote `hello.txt` with a greeting.") || msgs[3].Usage == nil || msgs[3].Usage.EvalTokens == 0 {
		t.Errorf("stored answer = %+v", msgs[3])
	}
}
