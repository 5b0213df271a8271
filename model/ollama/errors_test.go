package ollama

import (
	"context"
	"errors"
	"io"
	"net/http"
	"prototyper/model/vocab"
	"regexp"
	"strings"
	"sync/atomic"
	"testing"
	"time"
)

func TestAWebPageOrAForeign404SaysCheckTheAddressNotPull(t *testing.T) {
	for _, tc := range []struct {
		name              string
		status            int
		ctype, body, says string
	}{
		{"an HTML 404 page", 404, "text/html; charset=utf-8", "<!DOCTYPE html><html><body>Not Found</body></html>", "answered with a web page, not Ollama's API: check the address"},
		{"an HTML 200 page", 200, "text/html", "<html><body>Welcome to nginx!</body></html>", "answered with a web page, not Ollama's API: check the address"},
		{"an HTML page without its content type", 502, "", "<html><head><title>502 Bad Gateway</title></head></html>", "answered with a web page"},
		{"a plain 404 of another server", 404, "text/plain", "404 page not found", "does not know Ollama's API (HTTP 404 for /api/chat): check the address"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var calls atomic.Int32
			c, _ := newTestServer(t, func(w http.ResponseWriter, r *http.Request) {
				calls.Add(1)
				if tc.ctype != "" {
					w.Header().Set("Content-Type", tc.ctype)
				}
				w.WriteHeader(tc.status)
				_, _ = io.WriteString(w, tc.body)
			})
			_, err := c.Chat(testCtx(t), userTurn("qwen3", "hi"), nil)
			if !errors.Is(err, ErrNotOllama) || errors.Is(err, vocab.ErrModelNotFound) || Code(err) != "not_ollama" {
				t.Fatalf("err = %v (code %s), want ErrNotOllama", err, Code(err))
			}
			if msg := err.Error(); !strings.Contains(msg, tc.says) || strings.Contains(msg, "pull") {
				t.Errorf("message %q should say %q and not advise a pull", msg, tc.says)
			}
			if calls.Load() != 1 {
				t.Errorf("%d requests, want 1: another server is not retried", calls.Load())
			}
		})
	}
}

// goAPIName matches an exported Go identifier of this package's API in a message: an
// option (WithX), a type or a sentinel. A user can do nothing with these.
var goAPIName = regexp.MustCompile(`\b(With[A-Z]\w*|Err[A-Z]\w*|[A-Z]\w*Error|ChatRequest|EventFunc)\b`)

func TestNoMessageNamesAGoAPI(t *testing.T) {
	errs := []error{
		&NotRunningError{URL: "http://127.0.0.1:11434"},
		&StatusError{StatusCode: 404, Model: "m", URL: "u"},
		&StatusError{StatusCode: 400, Message: "x does not support tools"},
		&StatusError{StatusCode: 503, URL: "u"},
		&StatusError{StatusCode: 500, URL: "u"},
		&StatusError{StatusCode: 401, URL: "u"},
		&StreamError{Message: "boom"},
		&IncompleteStreamError{Lines: 1},
		&LineTooLongError{Line: 1, Limit: 16 << 20},
		&MalformedLineError{Line: 1, Err: errors.New("bad")},
		&TimeoutError{FirstByte: true, After: time.Minute, Path: "/api/chat"},
		&TimeoutError{FirstByte: true, After: time.Minute, Path: "/api/show"},
		&TimeoutError{After: time.Minute},
		&NotOllamaError{URL: "u", WebPage: true},
		&NotOllamaError{URL: "u", StatusCode: 404, Path: "/api/chat"},
		networkFailure(errors.New("EOF")),
	}
	if _, err := ResolveHost("not a url"); err != nil {
		errs = append(errs, err)
	} else {
		t.Error(`ResolveHost("not a url") succeeded`)
	}
	for _, err := range errs {
		msg := err.Error()
		if m := goAPIName.FindString(msg); m != "" {
			t.Errorf("%T names %q: %s", err, m, msg)
		}
		if strings.Contains(msg, "\n") {
			t.Errorf("%T is more than one line: %s", err, msg)
		}
	}
}

func TestErrorsSayWhatToDoAndClassify(t *testing.T) {
	for _, tc := range []struct {
		err       error
		code      string
		retryable bool
		says      string
	}{
		{&NotRunningError{URL: "http://127.0.0.1:11434"}, "not_running", true, "start it with `ollama serve`"},
		{&StatusError{StatusCode: 404, Model: "qwen3", URL: "u"}, "model_not_found", false, "run `prototyper pull qwen3`"},
		{&StatusError{StatusCode: 400, Message: `"x" does not support tools`}, "capability_missing", false, "pick a model"},
		{&StatusError{StatusCode: 400, Message: "think value \"low\" is not supported for this model"}, "capability_missing", false, "--think off"},
		{&StatusError{StatusCode: 503, URL: "u"}, "busy", true, "try again"},
		{&StatusError{StatusCode: 500, URL: "u", Message: "boom"}, "http_error", true, "boom"},
		{&StatusError{StatusCode: 401, URL: "u"}, "unauthorized", false, "wants a token (HTTP 401)"},
		{&StreamError{Message: "out of memory"}, "stream_error", true, "out of memory"},
		{&IncompleteStreamError{Lines: 3}, "incomplete_stream", true, "nothing from it was run"},
		{&LineTooLongError{Line: 2, Limit: 16 << 20}, "line_too_long", false, "check that the address points at an Ollama server"},
		{&MalformedLineError{Line: 7, Err: errors.New("bad")}, "malformed_line", false, "line 7"},
		{&TimeoutError{FirstByte: true, After: time.Minute}, "first_byte_timeout", true, "slow to load"},
		{&TimeoutError{After: time.Minute}, "idle_timeout", true, "sent nothing new for 1 min mid-answer"},
		{networkFailure(errors.New("EOF")), "network", true, "check that the server is up"},
	} {
		if got := Code(tc.err); got != tc.code {
			t.Errorf("Code(%T) = %q, want %q", tc.err, got, tc.code)
		}
		if got := Retryable(tc.err); got != tc.retryable {
			t.Errorf("Retryable(%v) = %v", tc.err, got)
		}
		if msg := tc.err.Error(); !strings.Contains(msg, tc.says) || strings.Contains(msg, "\n") {
			t.Errorf("%T says %q; want one line containing %q", tc.err, msg, tc.says)
		}
	}
}

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
	if !errors.Is(err, vocab.ErrUnauthorized) || Code(err) != "unauthorized" || Retryable(err) || requests != 1 {
		t.Fatalf("without a token: %v (code %s, %d requests)", err, Code(err), requests)
	}
	if !strings.Contains(err.Error(), "wants a token (HTTP 401)") || !strings.Contains(err.Error(), "--api-key-env") {
		t.Errorf("message %q does not say how to give a token", err)
	}

	_, err = c.With(WithAuthorization("Bearer wrong")).Chat(context.Background(), req, nil)
	if !errors.Is(err, vocab.ErrUnauthorized) || !strings.Contains(err.Error(), "refused the token") || strings.Contains(err.Error(), "wrong") {
		t.Errorf("a wrong token: %v", err)
	}

	res, err := c.With(WithAuthorization("Bearer right")).Chat(context.Background(), req, nil)
	if err != nil || res.Message.Content != "ok" || got != "Bearer right" {
		t.Errorf("the right token: %+v, %v (header %q)", res, err, got)
	}
}
