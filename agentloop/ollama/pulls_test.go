package ollama

import (
	"context"
	"errors"
	"net/http"
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
