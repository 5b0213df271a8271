package ollama

import (
	"errors"
	"io"
	"net/http"
	"regexp"
	"strings"
	"sync/atomic"
	"testing"
	"time"
)

func TestAWebPageOrAForeign404SaysCheckTheAddressNotPull(t *testing.T) {
	for _, tc := range []struct {
		name   string
		status int
		ctype  string
		body   string
		says   string
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
			if !errors.Is(err, ErrNotOllama) || errors.Is(err, ErrModelNotFound) || Code(err) != "not_ollama" {
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

func TestMetadataCallsGiveUpAfterTheirOwnShortTimeout(t *testing.T) {
	var calls atomic.Int32
	c, _ := newTestServer(t, func(w http.ResponseWriter, r *http.Request) {
		calls.Add(1)
		hang(r)
	}, WithFirstByteTimeout(time.Hour), WithMetadataTimeout(150*time.Millisecond))
	start := time.Now()
	_, err := c.Show(testCtx(t), "qwen3")
	elapsed := time.Since(start)
	if !errors.Is(err, ErrFirstByteTimeout) || elapsed > 5*time.Second {
		t.Fatalf("err = %v after %v, want a first-byte timeout after the metadata timeout", err, elapsed)
	}
	if calls.Load() != 1 {
		t.Errorf("%d requests, want 1", calls.Load())
	}
	if msg := err.Error(); !strings.Contains(msg, "did not answer within 150 ms") || !strings.Contains(msg, "ollama serve") {
		t.Errorf("message %q should say the server is stuck", msg)
	}
}

func TestAChatFirstByteTimeoutNamesTheFlagAndTheSetting(t *testing.T) {
	c, _ := newTestServer(t, func(w http.ResponseWriter, r *http.Request) { hang(r) },
		WithFirstByteTimeout(100*time.Millisecond))
	_, err := c.Chat(testCtx(t), userTurn("m", "hi"), nil)
	if !errors.Is(err, ErrFirstByteTimeout) {
		t.Fatalf("err = %v", err)
	}
	for _, want := range []string{"--first-byte-timeout", "first-byte timeout in the settings"} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("message %q does not name %q", err, want)
		}
	}
}

func TestWithChangesOneTimeoutOfACopyOnly(t *testing.T) {
	c, _ := newTestServer(t, func(w http.ResponseWriter, r *http.Request) { hang(r) })
	short := c.With(WithFirstByteTimeout(50 * time.Millisecond))
	if c.FirstByteTimeout() != DefaultFirstByteTimeout || short.FirstByteTimeout() != 50*time.Millisecond {
		t.Fatalf("timeouts %v and %v", c.FirstByteTimeout(), short.FirstByteTimeout())
	}
	if _, err := short.Chat(testCtx(t), userTurn("m", "hi"), nil); !errors.Is(err, ErrFirstByteTimeout) {
		t.Fatalf("err = %v", err)
	}
}

func TestTheStartOfAnAnswerIsReportedOnceBeforeItsDeltas(t *testing.T) {
	c, _ := newTestServer(t, func(w http.ResponseWriter, r *http.Request) {
		writeLines(w, `{"message":{"role":"assistant","content":"a"},"done":false}`,
			`{"message":{"role":"assistant","content":"b"},"done":true,"done_reason":"stop","load_duration":1500000000}`)
	})
	var rec recorder
	res, err := c.Chat(testCtx(t), userTurn("m", "hi"), rec.fn)
	if err != nil {
		t.Fatal(err)
	}
	if rec.count(EventStarted) != 1 || rec.events[0].Kind != EventStarted || res.Metrics.LoadDuration != 1500*time.Millisecond {
		t.Fatalf("events %+v, load %v", rec.events, res.Metrics.LoadDuration)
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

func TestAnAddressThatCannotBeOneIsRefusedInOneSentence(t *testing.T) {
	for _, bad := range []string{"not a url", "http://a b", "exa mple.com:80"} {
		_, err := ResolveHost(bad)
		if err == nil || !strings.Contains(err.Error(), "is not an Ollama address: give one like http://127.0.0.1:11434") {
			t.Errorf("ResolveHost(%q) = %v", bad, err)
		}
	}
}
