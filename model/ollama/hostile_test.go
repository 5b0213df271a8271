package ollama

import (
	"errors"
	"fmt"
	"net/http"
	"prototyper/model/internal/clienttest"
	"prototyper/model/vocab"
	"strings"
	"testing"
	"time"
)

// endless streams line until the client goes away.
func endless(line string) http.HandlerFunc {
	return clienttest.Endless("application/x-ndjson", line+"\n")
}

func TestAnEndlessAnswerIsCutAtTheAnswerSizeWithWhatFitKept(t *testing.T) {
	const limit = 64 << 10
	for _, tc := range []struct {
		name, line string
		kind       EventKind
	}{
		{"content", `{"message":{"role":"assistant","content":"héllo wörld "},"done":false}`, EventContentDelta},
		{"thinking", `{"message":{"role":"assistant","content":"","thinking":"hmm… "},"done":false}`, EventThinkingDelta},
		{"tool calls", `{"message":{"role":"assistant","content":"","tool_calls":[{"function":{"name":"write_file","arguments":{"path":"a","content":"xxxxxxxxxxxxxxxx"}}}]},"done":false}`, 0},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c, _ := newTestServer(t, endless(tc.line), WithMaxAnswerSize(limit))
			var rec recorder
			res, err := c.Chat(testCtx(t), userTurn("m", "hi"), rec.fn)
			var tl *vocab.AnswerTooLongError
			if !errors.As(err, &tl) || tl.Limit != limit || Code(err) != vocab.CodeAnswerTooLong || Retryable(err) {
				t.Fatalf("err = %v (code %s), want a vocab.AnswerTooLongError of %d bytes, not retryable", err, Code(err), limit)
			}
			if !strings.Contains(err.Error(), "64 KiB") || !strings.Contains(err.Error(), "--max-answer-size") {
				t.Errorf("message %q does not name the limit and how to raise it", err)
			}
			if tc.kind == 0 {
				if rec.count(EventToolCalls) != 0 || (res != nil && len(res.Message.ToolCalls) != 0) {
					t.Fatal("the calls of a cut answer were given")
				}
				return
			}
			got := rec.text(tc.kind)
			kept := res.Message.Content + res.Message.Thinking
			if len(got) > limit || len(got) < limit-len(tc.line) || got != kept || !strings.HasPrefix(got, "h") {
				t.Fatalf("%d bytes given, %d kept; want what fit of %d, the same", len(got), len(kept), limit)
			}
			if !utf8Valid(got) {
				t.Error("the text was cut inside a character")
			}
		})
	}
}

func utf8Valid(s string) bool { return strings.ToValidUTF8(s, "\uFFFD") == s }

func TestKeepAlivesDoNotHoldAnAnswerOpen(t *testing.T) {
	// a line every 10 ms that adds nothing to the answer, for ever, after a first word
	c, _ := newTestServer(t, func(w http.ResponseWriter, r *http.Request) {
		writeLines(w, `{"message":{"role":"assistant","content":"a"},"done":false}`)
		for {
			select {
			case <-r.Context().Done():
				return
			case <-time.After(10 * time.Millisecond):
				writeLines(w, `{"message":{"role":"assistant","content":""},"done":false}`)
			}
		}
	}, WithIdleTimeout(300*time.Millisecond))
	var rec recorder
	_, err := c.Chat(testCtx(t), userTurn("m", "hi"), rec.fn)
	if !errors.Is(err, vocab.ErrIdleTimeout) || Code(err) != vocab.CodeIdleTimeout || rec.text(EventContentDelta) != "a" {
		t.Fatalf("err = %v, content %q; want the idle timeout after \"a\"", err, rec.text(EventContentDelta))
	}
}

func TestAnAnswerThatGrowsSlowlyIsNotIdle(t *testing.T) {
	c, _ := newTestServer(t, func(w http.ResponseWriter, r *http.Request) {
		for i := range 8 {
			writeLines(w, fmt.Sprintf(`{"message":{"role":"assistant","content":"%d"},"done":false}`, i))
			time.Sleep(200 * time.Millisecond) // each gap well within the idle timeout, all of them longer
		}
		writeLines(w, doneLine)
	}, WithIdleTimeout(time.Second))
	res, err := c.Chat(testCtx(t), userTurn("m", "hi"), nil)
	if err != nil || res.Message.Content != "01234567" {
		t.Fatalf("err = %v, content %q", err, res.Message.Content)
	}
}

func TestTheKeyIsMaskedInWhateverTheServerSends(t *testing.T) {
	for _, tc := range []struct {
		name string
		h    http.HandlerFunc
	}{
		{"an error body that echoes the header", func(w http.ResponseWriter, r *http.Request) {
			w.WriteHeader(http.StatusBadRequest)
			fmt.Fprintf(w, `{"error":"bad header Authorization: %s"}`, r.Header.Get("Authorization"))
		}},
		{"an error body that spells it in escapes", func(w http.ResponseWriter, r *http.Request) {
			w.WriteHeader(http.StatusInternalServerError)
			fmt.Fprintf(w, `{"error":"key \u0073k-proj-0123456789abcdef\u0053ECRET refused"}`)
		}},
		{"a 401 page", func(w http.ResponseWriter, r *http.Request) {
			w.WriteHeader(http.StatusUnauthorized)
			fmt.Fprintf(w, "no such token %s", r.Header.Get("Authorization"))
		}},
		{"an error mid-stream", func(w http.ResponseWriter, r *http.Request) {
			writeLines(w, `{"message":{"role":"assistant","content":"hi"},"done":false}`,
				`{"error":"token `+clienttest.SecretKey+` expired"}`)
		}},
		{"the answer itself, cut anywhere", func(w http.ResponseWriter, r *http.Request) {
			line := `{"message":{"role":"assistant","content":"your key is ` + clienttest.SecretKey + `"},"done":false}` + "\n" + doneLine + "\n"
			w.Header().Set("Content-Type", "application/x-ndjson")
			for i := 0; i < len(line); i += 7 {
				_, _ = w.Write([]byte(line[i:min(i+7, len(line))]))
				w.(http.Flusher).Flush()
			}
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c, _ := newTestServer(t, tc.h, WithAuthorization("Bearer "+clienttest.SecretKey), WithRetry(1, 0))
			var rec recorder
			res, err := c.Chat(testCtx(t), userTurn("m", "hi"), rec.fn)
			answer := ""
			if res != nil {
				answer = res.Message.Content
			}
			clienttest.WantKeyHidden(t, err, func(se *StatusError) string { return se.Message }, rec.text(EventContentDelta), answer)
		})
	}
}

func TestARedirectToAnotherOriginIsNotFollowed(t *testing.T) {
	clienttest.OtherOrigins(t, func(w http.ResponseWriter, r *http.Request) { writeLines(w, doneLine) }, func(t *testing.T, to string) {
		c, srv := newTestServer(t, func(w http.ResponseWriter, r *http.Request) {
			http.Redirect(w, r, to+r.URL.Path, http.StatusTemporaryRedirect)
		}, WithAuthorization("Bearer "+clienttest.SecretKey), WithRetry(1, 0))
		_, err := c.Chat(testCtx(t), userTurn("m", "my private conversation"), nil)
		if Code(err) != vocab.CodeRedirected || Retryable(err) || !strings.Contains(fmt.Sprint(err), to+"/api/chat") ||
			!strings.Contains(fmt.Sprint(err), srv.URL) {
			t.Fatalf("err = %v (code %s), want one naming both addresses", err, Code(err))
		}
	})
}

func TestARedirectWithinTheOriginIsFollowed(t *testing.T) {
	c, _ := newTestServer(t, func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/api/chat" {
			http.Redirect(w, r, "/v2/api/chat", http.StatusTemporaryRedirect)
			return
		}
		writeLines(w, `{"message":{"role":"assistant","content":"ok"},"done":false}`, doneLine)
	})
	res, err := c.Chat(testCtx(t), userTurn("m", "hi"), nil)
	if err != nil || res.Message.Content != "ok" {
		t.Fatalf("err = %v", err)
	}
}
