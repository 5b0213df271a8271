package openai

import (
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"
	"unicode/utf8"

	"prototyper/model/internal/clienttest"
	"prototyper/model/vocab"
)

// serve returns a client of a server that answers every request with h.
func serve(t *testing.T, h http.HandlerFunc, opts ...Option) (*Client, *httptest.Server) {
	t.Helper()
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		_, _ = io.Copy(io.Discard, r.Body) // so that the server notices a closed connection
		h(w, r)
	}))
	t.Cleanup(srv.Close)
	base, err := ParseBaseURL(srv.URL)
	if err != nil {
		t.Fatal(err)
	}
	return New(base, append([]Option{WithRetry(1, 0, time.Millisecond, time.Millisecond)}, opts...)...), srv
}

// endless writes piece until the client goes away.
func endless(piece string) http.HandlerFunc {
	return clienttest.Endless("text/event-stream", piece)
}

func TestAnEndlessAnswerIsCutAtTheAnswerSizeWithWhatFitKept(t *testing.T) {
	const limit = 64 << 10
	for _, tc := range []struct {
		name, piece string
		thinking    bool
	}{
		{"content", chunk(`{"content":"héllo wörld "}`), false},
		{"reasoning", chunk(`{"reasoning_content":"hmm… "}`), true},
		{"content inside <think>", chunk(`{"content":"<think>"}`) + strings.Repeat(chunk(`{"content":"hmm… "}`), 1000), true},
		{"space before anything, held to see whether <think> comes", chunk(`{"content":"  "}`), false},
		{"tool-call argument fragments", `data: {"choices":[{"index":0,"delta":{"tool_calls":[{"index":0,"id":"c1","function":{"name":"write_file","arguments":""}}]}}]}` + "\n\n" +
			strings.Repeat(chunk(`{"tool_calls":[{"index":0,"function":{"arguments":"xxxxxxxx"}}]}`), 1000), false},
		{"a tool call's name, without an id or an index", chunk(`{"tool_calls":[{"function":{"name":"f","arguments":""}}]}`), false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c, _ := serve(t, endless(tc.piece), WithMaxAnswerSize(limit))
			thinking, content, res, err := collect(t, c)
			var tl *vocab.AnswerTooLongError
			if !errors.As(err, &tl) || tl.Limit != limit || Code(err) != vocab.CodeAnswerTooLong || Retryable(err) {
				t.Fatalf("err = %v (code %s), want a vocab.AnswerTooLongError of %d bytes, not retryable", err, Code(err), limit)
			}
			if !strings.Contains(err.Error(), "64 KiB") {
				t.Errorf("message %q does not name the limit", err)
			}
			if res != nil && len(res.ToolCalls) != 0 {
				t.Fatal("the calls of a cut answer were given")
			}
			got := strings.Join(content, "")
			if tc.thinking {
				got = strings.Join(thinking, "")
			}
			if len(got) > limit || !utf8.ValidString(got) {
				t.Fatalf("%d bytes given (valid UTF-8: %v), want at most %d", len(got), utf8.ValidString(got), limit)
			}
			if strings.Contains(tc.piece, "hmm") || strings.Contains(tc.piece, "héllo") {
				if len(got) < limit-100 || res == nil || res.Content+res.Thinking != got {
					t.Fatalf("%d bytes given; want what fit of %d, kept in the result", len(got), limit)
				}
			}
		})
	}
}

func TestDataLinesWithoutTheirBlankLineAreBoundedAsALineIs(t *testing.T) {
	c, _ := serve(t, endless("data: "+strings.Repeat("x", 1000)+"\n"))
	_, _, _, err := collect(t, c)
	if !errors.Is(err, vocab.ErrLineTooLong) || Code(err) != vocab.CodeLineTooLong {
		t.Fatalf("err = %v, want the line limit", err)
	}
}

func TestKeepAlivesDoNotHoldAnAnswerOpen(t *testing.T) {
	for _, keepAlive := range []string{"data: {}\n\n", ": ping\n\n", chunk(`{"content":""}`), "\n",
		chunk(`{"tool_calls":[{"function":{"arguments":""}}]}`)} {
		t.Run(strings.TrimSpace(keepAlive), func(t *testing.T) {
			c, _ := serve(t, func(w http.ResponseWriter, r *http.Request) {
				w.Header().Set("Content-Type", "text/event-stream")
				io.WriteString(w, chunk(`{"content":"a"}`))
				for {
					w.(http.Flusher).Flush()
					select {
					case <-r.Context().Done():
						return
					case <-time.After(10 * time.Millisecond):
						io.WriteString(w, keepAlive)
					}
				}
			}, WithTimeouts(time.Minute, 300*time.Millisecond))
			_, content, _, err := collect(t, c)
			if !errors.Is(err, vocab.ErrIdleTimeout) || Code(err) != vocab.CodeIdleTimeout || strings.Join(content, "") != "a" {
				t.Fatalf("err = %v, content %q; want the idle timeout after \"a\"", err, content)
			}
		})
	}
}

func TestAnAnswerThatGrowsSlowlyIsNotIdle(t *testing.T) {
	c, _ := serve(t, func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/event-stream")
		for i := range 8 {
			io.WriteString(w, chunk(fmt.Sprintf(`{"content":"%d"}`, i)))
			w.(http.Flusher).Flush()
			time.Sleep(200 * time.Millisecond) // each gap well within the idle timeout, all of them longer
		}
		io.WriteString(w, finish)
	}, WithTimeouts(time.Minute, time.Second))
	_, content, _, err := collect(t, c)
	if err != nil || strings.Join(content, "") != "01234567" {
		t.Fatalf("err = %v, content %q", err, content)
	}
}

func TestTheKeyIsMaskedInWhateverTheServerSends(t *testing.T) {
	for _, tc := range []struct {
		name string
		h    http.HandlerFunc
	}{
		{"an error body that echoes the header", func(w http.ResponseWriter, r *http.Request) {
			w.Header().Set("Content-Type", "application/json")
			w.WriteHeader(http.StatusBadRequest)
			fmt.Fprintf(w, `{"error":{"message":"bad header Authorization: %s"}}`, r.Header.Get("Authorization"))
		}},
		{"an error body that spells it in escapes", func(w http.ResponseWriter, r *http.Request) {
			w.WriteHeader(http.StatusInternalServerError)
			fmt.Fprintf(w, `{"message":"key \u0073k-proj-0123456789abcdef\u0053ECRET refused"}`)
		}},
		{"a 401", func(w http.ResponseWriter, r *http.Request) {
			w.WriteHeader(http.StatusUnauthorized)
			fmt.Fprintf(w, `{"error":"no such key %s"}`, r.Header.Get("Authorization"))
		}},
		{"an error event mid-stream", func(w http.ResponseWriter, r *http.Request) {
			w.Header().Set("Content-Type", "text/event-stream")
			io.WriteString(w, chunk(`{"content":"hi"}`)+`data: {"error":{"message":"key `+clienttest.SecretKey+` expired"}}`+"\n\n")
		}},
		{"the answer itself, cut anywhere", func(w http.ResponseWriter, r *http.Request) {
			w.Header().Set("Content-Type", "text/event-stream")
			body := chunk(`{"content":"your key is `+clienttest.SecretKey+`"}`) + finish + "data: [DONE]\n\n"
			for i := 0; i < len(body); i += 5 {
				io.WriteString(w, body[i:min(i+5, len(body))])
				w.(http.Flusher).Flush()
			}
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c, _ := serve(t, tc.h, WithAPIKey(clienttest.SecretKey, "VLLM_API_KEY"))
			_, content, res, err := collect(t, c)
			answer := ""
			if res != nil {
				answer = res.Content
			}
			clienttest.WantKeyHidden(t, err, func(se *StatusError) string { return se.Message }, strings.Join(content, ""), answer)
		})
	}
}

func TestARedirectToAnotherOriginIsNotFollowed(t *testing.T) {
	elsewhere := clienttest.OtherOrigins(t, func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/event-stream")
		io.WriteString(w, finish)
	}, func(t *testing.T, to string) {
		c, srv := serve(t, func(w http.ResponseWriter, r *http.Request) {
			http.Redirect(w, r, to+r.URL.Path, http.StatusPermanentRedirect)
		}, WithAPIKey(clienttest.SecretKey, "VLLM_API_KEY"))
		_, _, _, err := collect(t, c)
		if Code(err) != vocab.CodeRedirected || Retryable(err) || !strings.Contains(fmt.Sprint(err), to+"/v1/chat/completions") ||
			!strings.Contains(fmt.Sprint(err), srv.URL) {
			t.Fatalf("err = %v (code %s), want one naming both addresses", err, Code(err))
		}
	})
	t.Run("to an address that holds the key", func(t *testing.T) {
		c, _ := serve(t, func(w http.ResponseWriter, r *http.Request) {
			http.Redirect(w, r, elsewhere+"/?k="+strings.TrimPrefix(r.Header.Get("Authorization"), "Bearer "), http.StatusFound)
		}, WithAPIKey(clienttest.SecretKey, "VLLM_API_KEY"))
		_, _, _, err := collect(t, c)
		if Code(err) != vocab.CodeRedirected || strings.Contains(fmt.Sprint(err), clienttest.SecretKey) || !strings.Contains(fmt.Sprint(err), "[key hidden]") {
			t.Fatalf("err = %v, want the redirect with the key hidden", err)
		}
	})
}
