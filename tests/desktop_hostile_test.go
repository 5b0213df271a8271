package tests

import (
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"net/http/httputil"
	"net/url"
	"os"
	"strings"
	"testing"
	"time"

	"prototyper/events"
	"prototyper/internal/ollamatest"
	"prototyper/store"
)

// chatTakenOver stands a proxy in front of upstream (the shared server, which answers the
// model's questions) whose chat requests, of either API, chat answers instead.
func chatTakenOver(t *testing.T, upstream string, chat func(p provider) http.HandlerFunc) string {
	t.Helper()
	target, err := url.Parse(upstream)
	if err != nil {
		t.Fatal(err)
	}
	proxy := httputil.NewSingleHostReverseProxy(target)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch r.URL.Path {
		case "/api/chat":
			_, _ = io.Copy(io.Discard, r.Body)
			chat(store.ProviderOllama)(w, r)
		case "/v1/chat/completions":
			_, _ = io.Copy(io.Discard, r.Body)
			chat(store.ProviderOpenAI)(w, r)
		default:
			proxy.ServeHTTP(w, r)
		}
	}))
	t.Cleanup(srv.Close)
	return srv.URL
}

// endlessAnswer is an answer of p's API that never ends.
func endlessAnswer(p provider) http.HandlerFunc {
	piece := `{"message":{"role":"assistant","content":"all work and no play "},"done":false}` + "\n"
	contentType := "application/x-ndjson"
	if p == store.ProviderOpenAI {
		piece = `data: {"choices":[{"index":0,"delta":{"content":"all work and no play "}}]}` + "\n\n"
		contentType = "text/event-stream"
	}
	return func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", contentType)
		chunk := []byte(strings.Repeat(piece, 64))
		for r.Context().Err() == nil {
			if _, err := w.Write(chunk); err != nil {
				return
			}
			w.(http.Flusher).Flush()
		}
	}
}

// TestDesktopAnEndlessAnswerIsCutAtItsSizeAndSaysSo: a server that never ends its answer. The
// window shows what came up to the answer size of the settings, then the sentence of an answer
// cut at its size; the chat keeps the answer cut there, no larger.
func TestDesktopAnEndlessAnswerIsCutAtItsSizeAndSaysSo(t *testing.T) {
	const limit = 64 << 10
	eachProvider(t, func(t *testing.T, p provider) {
		server := chatTakenOver(t, ollamatest.Get(t).URL(), endlessAnswer)
		r := startDesktopRunWith(t, writerModel, store.Settings{Think: "on", MaxAnswerBytes: limit}, "Write a lot",
			withArgs(p.argsAt(server)...))
		r.waitFinished(t, 90*time.Second)
		if !r.app.says("was cut there") {
			t.Errorf("the window does not say that the answer was cut at its size: %q", r.app.textsWith("answer"))
		}
		r.app.waitControl(rolePushButton, "Retry", 20*time.Second)
		if n := len(r.app.controls(rolePushButton, "Settings")); n != 2 { // the header's, and the notice's: where the limit is raised
			t.Errorf("%d Settings buttons; want the notice's beside the header's", n)
		}
		shot, db := r.finish(t, "hostile-endless-"+string(p)+".png")
		t.Logf("screenshot after the run: %s", shot)
		run, answer := theEndedAnswer(t, db, events.StopError)
		if len(answer.Content) > limit || len(answer.Content) < limit-100 || !strings.HasPrefix(answer.Content, "all work") {
			t.Errorf("the stored answer holds %d bytes; want what fit of %d", len(answer.Content), limit)
		}
		if len(run.Notes) != 1 || run.Notes[0].Code != "answer_too_long" {
			t.Errorf("the run's notes are %+v; want the answer cut at its size", run.Notes)
		}
	})
}

const echoedKey = "sk-proj-0123456789abcdefSECRET"

// TestDesktopAKeyAServerEchoesIsNeverShownNorStored: the server refuses the request and writes
// the Authorization header it got into its error. The window's notice says the server's words
// with the key hidden, and the database file never holds it.
func TestDesktopAKeyAServerEchoesIsNeverShownNorStored(t *testing.T) {
	eachProvider(t, func(t *testing.T, p provider) {
		server := chatTakenOver(t, ollamatest.Get(t).URL(), func(provider) http.HandlerFunc {
			return func(w http.ResponseWriter, r *http.Request) {
				w.WriteHeader(http.StatusBadRequest)
				fmt.Fprintf(w, `{"error":"bad header Authorization: %s"}`, r.Header.Get("Authorization"))
			}
		})
		r := startDesktopRunWith(t, writerModel, store.Settings{Think: "on", APIKeyEnv: "PROTOTYPER_TEST_KEY"}, "hi",
			withArgs(append(p.argsAt(server), "--api-key-env", "PROTOTYPER_TEST_KEY")...), withEnv("PROTOTYPER_TEST_KEY="+echoedKey))
		r.waitFinished(t, 90*time.Second)
		if !r.app.says("[key hidden]") {
			t.Errorf("the window does not show the server's words with the key hidden: %q", r.app.textsWith("Authorization"))
		}
		if shown := r.app.textsWith("0123456789abcdef"); len(shown) > 0 {
			t.Errorf("the window shows the key: %q", shown)
		}
		shot, _ := r.finish(t, "hostile-key-"+string(p)+".png")
		t.Logf("screenshot after the run: %s", shot)
		raw, err := os.ReadFile(r.db)
		if err != nil {
			t.Fatal(err)
		}
		if strings.Contains(string(raw), "0123456789abcdef") {
			t.Error("the key is in the database file")
		}
	})
}

// TestDesktopTheLargestAnswerIsSetInTheSettingsByKeyboard: the answer size limit is a field of
// the settings, reached with Tab; what is typed there (MiB) is saved in bytes.
func TestDesktopTheLargestAnswerIsSetInTheSettingsByKeyboard(t *testing.T) {
	layoutCanMatter(t)
	r := startDesktopRunWith(t, writerModel, store.Settings{Think: "on"}, "")
	r.app.key("ctrl+comma")
	r.app.waitFocus(roleComboBox, "Model server", 30*time.Second)
	tabTo(t, r.app, "Largest answer kept")
	r.app.key("ctrl+a")
	r.app.typeText("32")
	time.Sleep(time.Second) // painted, for the screenshot
	t.Logf("the settings, the answer size typed: %s", r.app.screenshot("hostile-settings-answer-size.png"))
	r.app.key("Return")
	if s := r.savedSettings(t, "hostile-settings-answer-size-saved.png"); s.MaxAnswerBytes != 32<<20 {
		t.Errorf("saved answer size %d; want 32 MiB", s.MaxAnswerBytes)
	}
}

// tabTo presses Tab until the control whose accessible name begins with prefix has the
// keyboard focus, as a keyboard user moves through a form; each Tab waits until the focus has
// moved, so that none goes past the control.
func tabTo(t *testing.T, a *desktopApp, prefix string) {
	t.Helper()
	current := focusedName(a)
	for range 60 {
		if strings.HasPrefix(current, prefix) {
			return
		}
		a.key("Tab")
		// long enough for a loaded machine: a second Tab pressed while the first is on its way
		// would skip a control
		for deadline := time.Now().Add(15 * time.Second); time.Now().Before(deadline); time.Sleep(50 * time.Millisecond) {
			if now := focusedName(a); now != current {
				current = now
				break
			}
		}
	}
	t.Fatalf("Tab never reached %q… (last focused: %q)", prefix, current)
}

// focusedName is the accessible name of the control that has the keyboard focus ("": none):
// the deepest focused node, the window around it being focused too.
func focusedName(a *desktopApp) string {
	var focused string
	a.each(func(n a11yNode) {
		if name := a.name(n); name != "" && a.hasState(n, name, stateFocused) {
			focused = name // the tree is walked from the window down
		}
	})
	return focused
}
