package ollama

import (
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"prototyper/model/vocab"
	"testing"
	"time"
)

func TestThrottlePullPassesEveryStepAndAtMostTenReportsASecond(t *testing.T) {
	now := time.Unix(0, 0)
	var got []PullProgress
	fn := throttlePull(func(p PullProgress) error { got = append(got, p); return nil }, 100*time.Millisecond, func() time.Time { return now })
	step := func(after time.Duration, p PullProgress) {
		now = now.Add(after)
		_ = fn(p)
	}
	layer := func(done int64) PullProgress {
		return PullProgress{Status: "pulling a", Digest: "sha256:a", Total: 100, Completed: done}
	}
	step(0, PullProgress{Status: "pulling manifest"})
	step(time.Millisecond, layer(0))     // a new status: passes
	step(time.Millisecond, layer(10))    // 1 ms later: held
	step(50*time.Millisecond, layer(20)) // 51 ms after the last passed: held
	step(60*time.Millisecond, layer(30)) // 111 ms: passes
	step(time.Millisecond, layer(100))   // the layer finished: passes
	step(time.Millisecond, PullProgress{Status: "verifying sha256 digest"})
	step(time.Millisecond, PullProgress{Status: "success"})
	var completed []int64
	for _, p := range got {
		completed = append(completed, p.Completed)
	}
	if len(got) != 6 || got[0].Status != "pulling manifest" || got[5].Status != "success" ||
		completed[1] != 0 || completed[2] != 30 || completed[3] != 100 {
		t.Errorf("passed %+v", got)
	}
}

func TestPullsRunOnePullPerModelAndCloseStopsThem(t *testing.T) {
	started := make(chan struct{}, 1)
	client, _ := newTestServer(t, func(w http.ResponseWriter, r *http.Request) {
		writeLines(w, `{"status":"pulling manifest"}`)
		started <- struct{}{}
		hang(r)
	})
	var pulls Pulls
	done := make(chan error, 1)
	go func() { done <- pulls.Pull(context.Background(), client, " qwen3:0.6b ", nil) }()
	<-started
	var running *PullRunningError
	if err := pulls.Pull(context.Background(), client, "qwen3:0.6b", nil); !errors.As(err, &running) {
		t.Errorf("second pull of the same model: %v, want a PullRunningError", err)
	}
	if err := pulls.Pull(context.Background(), client, "  ", nil); err == nil {
		t.Error("a pull without a name was not refused")
	}
	pulls.Close()
	if err := within(t, 5*time.Second, done, "Close did not stop the pull"); !errors.Is(err, context.Canceled) {
		t.Errorf("pull after Close = %v, want context.Canceled", err)
	}
	if err := pulls.Pull(context.Background(), client, "gemma3:1b", nil); !errors.Is(err, context.Canceled) {
		t.Errorf("pull after Close = %v, want it refused", err)
	}
}

func TestPull(t *testing.T) {
	for _, tc := range []struct {
		name    string
		lines   []string
		want    error
		updates int
	}{
		{"ends with success", []string{
			`{"status":"pulling manifest"}`,
			`{"status":"pulling 7df6b6e09427","digest":"sha256:7df6b6e09427","total":522653767}`,
			`{"status":"pulling 7df6b6e09427","digest":"sha256:7df6b6e09427","total":522653767,"completed":1000}`,
			`{"status":"verifying sha256 digest"}`, `{"status":"writing manifest"}`, `{"status":"success"}`,
		}, nil, 6},
		{"an error line is a StreamError", []string{`{"status":"pulling manifest"}`, `{"error":"pull model manifest: file does not exist"}`}, vocab.ErrStream, 1},
		{"an unreachable registry says the computer is offline", []string{`{"status":"pulling manifest"}`,
			`{"error":"pull model manifest: Get \"https://registry.ollama.ai/v2/library/qwen3/manifests/0.6b\": dial tcp: lookup registry.ollama.ai: no such host"}`},
			ErrRegistryUnreachable, 1},
		{"a stream without success is incomplete", []string{`{"status":"pulling manifest"}`}, vocab.ErrIncompleteStream, 1},
		{"a malformed line is an error", []string{`{"status":`}, vocab.ErrMalformedLine, 0},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c, _ := newTestServer(t, func(w http.ResponseWriter, r *http.Request) {
				var req struct {
					Model  string
					Stream bool
				}
				_ = json.NewDecoder(r.Body).Decode(&req)
				if r.URL.Path != "/api/pull" || req.Model != "qwen3:0.6b" || !req.Stream {
					t.Errorf("request = %s %+v", r.URL.Path, req)
				}
				writeLines(w, tc.lines...)
			})
			var got []PullProgress
			err := c.Pull(testCtx(t), "qwen3:0.6b", func(p PullProgress) error { got = append(got, p); return nil })
			if !errors.Is(err, tc.want) || (tc.want == nil) != (err == nil) {
				t.Fatalf("err = %v, want %v", err, tc.want)
			}
			if len(got) != tc.updates {
				t.Errorf("%d updates, want %d", len(got), tc.updates)
			}
			if tc.want == nil && (got[2].Completed != 1000 || got[2].Total != 522653767 || got[2].Digest == "") {
				t.Errorf("progress = %+v", got[2])
			}
		})
	}
}

func TestPullIdleTimeout(t *testing.T) {
	c, _ := newTestServer(t, func(w http.ResponseWriter, r *http.Request) {
		writeLines(w, `{"status":"pulling manifest"}`)
		hang(r)
	}, WithPullIdleTimeout(100*time.Millisecond))
	if err := c.Pull(testCtx(t), "m", nil); !errors.Is(err, vocab.ErrIdleTimeout) {
		t.Fatalf("err = %v, want vocab.ErrIdleTimeout", err)
	}
}
