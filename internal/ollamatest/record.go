package ollamatest

import (
	"bytes"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"net/http/httputil"
	"net/url"
	"slices"
	"sync"
	"testing"
)

// RecordChats starts a proxy in front of the shared server ([Get]) that keeps, decoded into T,
// every /api/chat request that carries messages (a preload carries none), and passes every
// request on. It returns the proxy's address and the requests kept so far, oldest first.
func RecordChats[T any](tb testing.TB) (address string, requests func() []T) {
	tb.Helper()
	target, err := url.Parse(Get(tb).URL())
	if err != nil {
		tb.Fatal(err)
	}
	proxy := httputil.NewSingleHostReverseProxy(target)
	var mu sync.Mutex
	var kept []T
	front := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/api/chat" {
			body, _ := io.ReadAll(r.Body)
			r.Body = io.NopCloser(bytes.NewReader(body))
			var probe struct {
				Messages []json.RawMessage `json:"messages"`
			}
			var req T
			if json.Unmarshal(body, &probe) == nil && len(probe.Messages) > 0 && json.Unmarshal(body, &req) == nil {
				mu.Lock()
				kept = append(kept, req)
				mu.Unlock()
			}
		}
		proxy.ServeHTTP(w, r)
	}))
	tb.Cleanup(front.Close)
	return front.URL, func() []T {
		mu.Lock()
		defer mu.Unlock()
		return slices.Clone(kept)
	}
}
