package ollama

import (
	"context"
	"errors"
	"net/http"
	"strings"
	"testing"
)

// TestAProxyThatWantsATokenIsOneSentenceAndNeverRetried: a remote server behind a proxy
// gets the Authorization header of WithAuthorization on every request; the proxy's 401 —
// an HTML page, as proxies send — says how to give a token, and never shows the token.
func TestAProxyThatWantsATokenIsOneSentenceAndNeverRetried(t *testing.T) {
	var requests int
	var got string
	h := func(w http.ResponseWriter, r *http.Request) {
		requests++
		got = r.Header.Get("Authorization")
		if got != "Bearer right" {
			w.Header().Set("Content-Type", "text/html")
			w.WriteHeader(http.StatusUnauthorized)
			_, _ = w.Write([]byte("<html>401 Authorization Required</html>"))
			return
		}
		writeLines(w, `{"message":{"content":"ok"},"done":true,"done_reason":"stop"}`)
	}
	c, _ := newTestServer(t, h)
	req := &ChatRequest{Model: "m", Messages: []Message{{Role: RoleUser, Content: "hi"}}}

	_, err := c.Chat(context.Background(), req, nil)
	if !errors.Is(err, ErrUnauthorized) || Code(err) != "unauthorized" || Retryable(err) || requests != 1 {
		t.Fatalf("without a token: %v (code %s, %d requests)", err, Code(err), requests)
	}
	if !strings.Contains(err.Error(), "wants a token (HTTP 401)") || !strings.Contains(err.Error(), "--api-key-env") {
		t.Errorf("message %q does not say how to give a token", err)
	}

	_, err = c.With(WithAuthorization("Bearer wrong")).Chat(context.Background(), req, nil)
	if !errors.Is(err, ErrUnauthorized) || !strings.Contains(err.Error(), "refused the token") || strings.Contains(err.Error(), "wrong") {
		t.Errorf("a wrong token: %v", err)
	}

	res, err := c.With(WithAuthorization("Bearer right")).Chat(context.Background(), req, nil)
	if err != nil || res.Message.Content != "ok" || got != "Bearer right" {
		t.Errorf("the right token: %+v, %v (header %q)", res, err, got)
	}
}
