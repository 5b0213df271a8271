package ollama

import (
	"bytes"
	"context"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"testing"
	"time"
)

// newTestServer serves h and returns a client for it with quick retries.
func newTestServer(t testing.TB, h http.HandlerFunc, opts ...Option) (*Client, *httptest.Server) {
	t.Helper()
	// The body is read up front: a Go server notices a client's disconnect only once the
	// request body has been consumed.
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		r.Body = io.NopCloser(bytes.NewReader(body))
		h(w, r)
	}))
	t.Cleanup(srv.Close)
	u, err := url.Parse(srv.URL)
	if err != nil {
		t.Fatal(err)
	}
	base := []Option{WithRetryInterval(5*time.Millisecond, 20*time.Millisecond), WithRetry(4, 5*time.Second)}
	return New(u, append(base, opts...)...), srv
}

// writeLines streams lines as NDJSON, flushing after each.
func writeLines(w http.ResponseWriter, lines ...string) {
	w.Header().Set("Content-Type", "application/x-ndjson")
	for _, l := range lines {
		_, _ = w.Write([]byte(l + "\n"))
		w.(http.Flusher).Flush()
	}
}

// recorder collects the events of a Chat.
type recorder struct{ events []Event }

func (r *recorder) fn(e Event) error { r.events = append(r.events, e); return nil }

func (r *recorder) text(kind EventKind) string {
	var b strings.Builder
	for _, e := range r.events {
		if e.Kind == kind {
			b.WriteString(e.Text)
		}
	}
	return b.String()
}

func (r *recorder) count(kind EventKind) int {
	n := 0
	for _, e := range r.events {
		if e.Kind == kind {
			n++
		}
	}
	return n
}

func testCtx(t testing.TB) context.Context {
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	t.Cleanup(cancel)
	return ctx
}

func userTurn(model, text string) *ChatRequest {
	return &ChatRequest{Model: model, Messages: []Message{{Role: RoleUser, Content: text}}}
}

// hang blocks until the client goes away (or 10 s pass, so that a broken test cannot hang).
func hang(r *http.Request) bool {
	select {
	case <-r.Context().Done():
		return true
	case <-time.After(10 * time.Second):
		return false
	}
}

// within returns what ch delivers within d; when nothing comes, the test fails with never
// (what did not happen).
func within[T any](t testing.TB, d time.Duration, ch <-chan T, never string) T {
	t.Helper()
	select {
	case v := <-ch:
		return v
	case <-time.After(d):
		t.Fatal(never)
		panic("unreachable")
	}
}

// networkFailure is the error of a client whose request failed on the network with cause.
func networkFailure(cause error) error {
	return New(&url.URL{Scheme: "http", Host: "u"}).networkError(cause)
}
