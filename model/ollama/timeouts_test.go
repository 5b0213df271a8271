package ollama

import (
	"errors"
	"io"
	"net/http"
	"prototyper/model/vocab"
	"strings"
	"sync/atomic"
	"testing"
	"time"
)

func TestMetadataCallsGiveUpAfterTheirOwnShortTimeout(t *testing.T) {
	var calls atomic.Int32
	c, _ := newTestServer(t, func(w http.ResponseWriter, r *http.Request) {
		calls.Add(1)
		hang(r)
	}, WithFirstByteTimeout(time.Hour), WithMetadataTimeout(150*time.Millisecond))
	start := time.Now()
	_, err := c.Show(testCtx(t), "qwen3")
	elapsed := time.Since(start)
	if !errors.Is(err, vocab.ErrFirstByteTimeout) || elapsed > 5*time.Second {
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
	if !errors.Is(err, vocab.ErrFirstByteTimeout) {
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
	if c.FirstByteTimeout() != vocab.DefaultFirstByteTimeout || short.FirstByteTimeout() != 50*time.Millisecond {
		t.Fatalf("timeouts %v and %v", c.FirstByteTimeout(), short.FirstByteTimeout())
	}
	if _, err := short.Chat(testCtx(t), userTurn("m", "hi"), nil); !errors.Is(err, vocab.ErrFirstByteTimeout) {
		t.Fatalf("err = %v", err)
	}
}

func TestNonStreamingCallsRetryAndReport(t *testing.T) {
	var calls atomic.Int32
	var retries []RetryInfo
	c, _ := newTestServer(t, func(w http.ResponseWriter, r *http.Request) {
		if calls.Add(1) == 1 {
			w.WriteHeader(http.StatusServiceUnavailable)
			return
		}
		_, _ = io.WriteString(w, `{"version":"0.11.4"}`)
	}, WithRetryNotify(func(ri RetryInfo) { retries = append(retries, ri) }))
	if _, err := c.Version(testCtx(t)); err != nil {
		t.Fatal(err)
	}
	if len(retries) != 1 || retries[0].Attempt != 2 {
		t.Errorf("retries = %+v", retries)
	}
}
