package agentloop

import (
	"bufio"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"prototyper/events"
	"prototyper/tools"
)

// latencyScript prints the wall clock in nanoseconds (taken just before the write) every few
// milliseconds: the reader's clock minus the printed one is the line's way from the command
// to where it is read.
const latencyScript = `i=0; while [ $i -lt 200 ]; do date +%s%N; sleep 0.005; i=$((i+1)); done`

// lineLatencies adds, for each whole line of text that holds a timestamp, now minus it.
func lineLatencies(text string, now time.Time, out *[]time.Duration) {
	for _, line := range strings.Split(text, "\n") {
		if ns, err := strconv.ParseInt(strings.TrimSpace(line), 10, 64); err == nil && ns > 0 {
			*out = append(*out, now.Sub(time.Unix(0, ns)))
		}
	}
}

func percentiles(d []time.Duration) (p50, p99 time.Duration) {
	slices.Sort(d)
	return d[len(d)/2], d[len(d)*99/100]
}

// The way of a command's output to the tool.output event the loop emits, against the same
// program's output read from a bare pipe; both figures are printed (go test -v -run
// TestCommandOutputLatency ./agentloop/).
func TestCommandOutputLatencyFromTheCommandToItsEventAgainstABarePipe(t *testing.T) {
	if testing.Short() {
		t.Skip("measures 400 lines")
	}
	needSandbox(t)
	var pipe []time.Duration
	cmd := exec.Command("sh", "-c", latencyScript)
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	sc := bufio.NewScanner(stdout)
	for sc.Scan() {
		lineLatencies(sc.Text(), time.Now(), &pipe)
	}
	cmd.Wait()

	var (
		mu      sync.Mutex
		emitted []time.Duration
		partial string
	)
	b := newUndoBench(t, func(c *Config) {
		c.Tools = WorkspaceTools(tools.WorkspaceOptions{Commands: true})
		c.Emitter = EmitterFunc(func(e events.Event) {
			if e.Type != events.ToolOutput {
				return
			}
			now := time.Now()
			mu.Lock()
			defer mu.Unlock()
			text := partial + e.Text
			cut := strings.LastIndexByte(text, '\n') + 1
			lineLatencies(text[:cut], now, &emitted)
			partial = text[cut:]
		})
	})
	b.allowCommands()
	b.run(commandCall("c1", latencyScript))
	mu.Lock()
	defer mu.Unlock()
	if len(pipe) < 190 || len(emitted) < 190 {
		t.Fatalf("measured %d lines through a pipe and %d through the loop, want about 200 each", len(pipe), len(emitted))
	}
	p50, p99 := percentiles(pipe)
	e50, e99 := percentiles(emitted)
	t.Logf("output to reader, %d lines: bare pipe p50 %s p99 %s; sandbox to tool.output event p50 %s p99 %s", len(emitted), p50, p99, e50, e99)
}

// BenchmarkCommandOfTenThousandNewFiles: a command that makes 10,000 files (an npm install),
// through the loop: the sandbox, the checkpoint of every path, the change applied, against
// the sandbox run alone on the same files (sandbox.BenchmarkTenThousandNewFiles).
func BenchmarkCommandOfTenThousandNewFiles(b *testing.B) {
	needSandbox(b)
	const script = `mkdir -p node_modules && cd node_modules && for d in $(seq 100); do mkdir p$d; for f in $(seq 100); do echo "module $d $f" > p$d/f$f.js; done; done`
	for b.Loop() {
		b.StopTimer()
		u := newUndoBench(b, func(c *Config) { c.Tools = WorkspaceTools(tools.WorkspaceOptions{Commands: true}) })
		u.allowCommands()
		b.StartTimer()
		u.run(commandCall("c1", script))
		b.StopTimer()
		if _, err := os.Stat(filepath.Join(u.dir, "node_modules", "p100", "f100.js")); err != nil {
			b.Fatalf("the files were not applied: %v", err)
		}
		res, d := commandDetails(b, u.rec.events(), "c1")
		b.Logf("command %d ms in the sandbox, %d ms from the call's start to its result", d.DurationMs, *res.DurationMs)
		b.StartTimer()
	}
}
