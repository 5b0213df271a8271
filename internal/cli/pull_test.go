package cli

import (
	"bytes"
	"strings"
	"testing"
	"time"

	"prototyper/model/ollama"
)

func TestPullPrintsOneLinePerStepWithoutATerminal(t *testing.T) {
	url := fakeOllama(t,
		`{"status":"pulling manifest"}`,
		`{"status":"pulling 7df6b6e09427","digest":"sha256:7df6b6e09427aaaa","total":1000}`,
		`{"status":"pulling 7df6b6e09427","digest":"sha256:7df6b6e09427aaaa","total":1000,"completed":500}`,
		`{"status":"pulling 7df6b6e09427","digest":"sha256:7df6b6e09427aaaa","total":1000,"completed":501}`,
		`{"status":"pulling 7df6b6e09427","digest":"sha256:7df6b6e09427aaaa","total":1000,"completed":1000}`,
		`{"status":"verifying sha256 digest"}`,
		`{"status":"writing manifest"}`,
		`{"status":"success"}`,
	)
	code, out, errOut := runCmd(pullCommand, "qwen3:0.6b", "--ollama", url)
	if code != ExitCompleted {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	if strings.Contains(out, "\x1b[") {
		t.Errorf("escape codes on a plain writer:\n%q", out)
	}
	for _, want := range []string{"pulling manifest\n", "7df6b6e09427   0% 0 B/1 KB\n", "7df6b6e09427  50% 500 B/1 KB ", "7df6b6e09427 100%", "verifying sha256 digest\n", "success\n", "Pulled qwen3:0.6b.\n"} {
		if !strings.Contains(out, want) {
			t.Errorf("output lacks %q:\n%s", want, out)
		}
	}
	if strings.Count(out, " 50% ") != 1 {
		t.Errorf("the same percentage was printed twice:\n%s", out)
	}
}

func TestPullViewDrawsBarsInPlaceOnATerminal(t *testing.T) {
	var out bytes.Buffer
	now := time.Unix(0, 0)
	v := newPullView(&out, true, func() time.Time { return now })
	step := func(p ollama.PullProgress) {
		now = now.Add(time.Second)
		_ = v.update(p)
	}
	step(ollama.PullProgress{Status: "pulling manifest"})
	step(ollama.PullProgress{Status: "pulling aaa", Digest: "sha256:aaa", Total: 10_000_000})
	step(ollama.PullProgress{Status: "pulling aaa", Digest: "sha256:aaa", Total: 10_000_000, Completed: 5_000_000})
	step(ollama.PullProgress{Status: "pulling bbb", Digest: "sha256:bbb", Total: 2_000_000, Completed: 2_000_000})
	step(ollama.PullProgress{Status: "success"})
	v.finish()
	s := out.String()
	for _, want := range []string{"pulling aaa  50% ▕", "5 MB/10 MB", "5 MB/s  1s", "pulling bbb 100%", "\x1b[2A", "success"} {
		if !strings.Contains(s, want) {
			t.Errorf("terminal output lacks %q:\n%q", want, s)
		}
	}
}

func TestPullOfflineSaysSoAndHowToPullLater(t *testing.T) {
	url := fakeOllama(t, `{"status":"pulling manifest"}`,
		`{"error":"pull model manifest: Get \"https://registry.ollama.ai/v2/library/qwen3/manifests/4b\": dial tcp: lookup registry.ollama.ai: no such host"}`)
	code, _, errOut := runCmd(pullCommand, "qwen3:4b", "--ollama", url)
	if code != ExitFailed || strings.Count(errOut, "\n") != 1 || !strings.Contains(errOut, "offline") ||
		!strings.Contains(errOut, "`prototyper pull qwen3:4b`") {
		t.Errorf("exit %d, stderr %q; want one line saying the computer is offline and how to pull later", code, errOut)
	}
}
