package agentloop

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
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
	"prototyper/internal/testenv"
	"prototyper/model"
	"prototyper/store"
	"prototyper/tools"
)

// needSandbox fails (under make test) or skips when bubblewrap is missing.
func needSandbox(tb testing.TB) {
	tb.Helper()
	testenv.LookPath(tb, "", "bwrap", "install the package bubblewrap (scripts/install-deps.sh does)")
}

func commandCall(id, command string) store.ToolCall {
	return tc(id, "run_command", `{"command":`+quote(command)+`}`)
}

// newCommandBench is an undo bench whose toolbox has run_command, allowed without asking.
func newCommandBench(t testing.TB) *undoBench {
	b := newUndoBench(t, func(c *Config) { c.Tools = WorkspaceTools(tools.WorkspaceOptions{Commands: true}) })
	b.allowCommands()
	return b
}

// allowCommands lets run_command run without asking in the bench's agent.
func (b *undoBench) allowCommands() {
	b.t.Helper()
	if _, err := b.db.UpdateSettings(func(s *store.Settings) error {
		if s.ToolApproval == nil {
			s.ToolApproval = map[string]string{}
		}
		s.ToolApproval["run_command"] = ApproveAuto
		return nil
	}); err != nil {
		b.t.Fatal(err)
	}
}

// commandDetails is the details.command of the call's tool.result.
func commandDetails(t testing.TB, evs []events.Event, callID string) (events.Event, tools.CommandDetails) {
	t.Helper()
	for _, e := range ofType(evs, events.ToolResult) {
		if e.ToolCallID != callID {
			continue
		}
		raw, _ := json.Marshal(e.Details)
		var d struct {
			Command tools.CommandDetails `json:"command"`
		}
		if err := json.Unmarshal(raw, &d); err != nil {
			t.Fatal(err)
		}
		return e, d.Command
	}
	t.Fatalf("no tool.result of %s in %+v", callID, evs)
	return events.Event{}, tools.CommandDetails{}
}

func TestACommandsChangesAreCheckpointedAppliedUndoneAndRedoneLikeAWrite(t *testing.T) {
	needSandbox(t)
	b := newCommandBench(t)
	b.write("keep.txt", "before\n", 0o644)
	b.write("gone.txt", "delete me\n", 0o600)
	b.write("old/a.txt", "a\n", 0o644)
	b.write("old/deep/b.bin", "b\x00\x01", 0o640)
	b.run(commandCall("c1", "echo made > new.txt && mkdir -p out/sub && printf 'x' > out/sub/x.js && "+
		"echo after > keep.txt && rm gone.txt && rm -r old && chmod 600 keep.txt && echo done"))

	b.want("new.txt", "made\n", 0o644)
	b.want("out/sub/x.js", "x", 0o644)
	b.want("keep.txt", "after\n", 0o600)
	b.want("gone.txt", "", 0)
	b.want("old", "", 0)
	evs := b.rec.events()
	res, d := commandDetails(t, evs, "c1")
	if res.OK == nil || !*res.OK || d.ExitCode != 0 {
		t.Fatalf("result %+v %+v, want a command that ran with exit status 0", res, d)
	}
	kinds := map[string]string{}
	for _, c := range d.Changes {
		kinds[c.Path] = c.Kind
	}
	for p, k := range map[string]string{"new.txt": "created", "out/sub/x.js": "created", "keep.txt": "modified", "gone.txt": "deleted", "old": "deleted"} {
		if kinds[p] != k {
			t.Errorf("details.command.changes says %s is %q, want %q (all: %+v)", p, kinds[p], k, d.Changes)
		}
	}
	cps := ofType(evs, events.Checkpoint)
	if len(cps) != 1 || indexOf(evs, cps[0]) > indexOf(evs, res) {
		t.Fatalf("checkpoint events %+v, want one before the result", cps)
	}
	if out := ofType(evs, events.ToolOutput); len(out) == 0 || !strings.Contains(out[len(out)-1].Text, "done") ||
		indexOf(evs, out[len(out)-1]) > indexOf(evs, res) {
		t.Errorf("tool.output events %+v, want the command's output before its result", out)
	}

	b.undo(UndoOptions{})
	b.want("new.txt", "", 0)
	b.want("out", "", 0)
	b.want("keep.txt", "before\n", 0o644)
	b.want("gone.txt", "delete me\n", 0o600)
	b.want("old/a.txt", "a\n", 0o644)
	b.want("old/deep/b.bin", "b\x00\x01", 0o640)

	b.redo()
	b.want("new.txt", "made\n", 0o644)
	b.want("out/sub/x.js", "x", 0o644)
	b.want("keep.txt", "after\n", 0o600)
	b.want("gone.txt", "", 0)
	b.want("old", "", 0)
}

func TestACommandSeesItsFailureFixesTheFileAndPassesOnTheNextRun(t *testing.T) {
	needSandbox(t)
	b := newCommandBench(t)
	test := `test "$(cat answer.txt)" = 42 && echo PASS || { echo "FAIL: answer.txt holds $(cat answer.txt)" >&2; exit 3; }`
	var seen []string
	b.a.cfg.Model = &fakeModel{turn: func(req model.Request) model.Turn {
		last := req.Messages[len(req.Messages)-1]
		switch {
		case last.Role == store.RoleUser:
			return toolTurn(writeCall("w1", "answer.txt", "41"), commandCall("t1", test))
		case last.ToolCallID == "t1":
			seen = append(seen, last.Content)
			return toolTurn(writeCall("w2", "answer.txt", "42"), commandCall("t2", test))
		case last.ToolCallID == "t2":
			seen = append(seen, last.Content)
			return answer("fixed")
		}
		return answer("?")
	}}
	b.run()
	if len(seen) != 2 {
		t.Fatalf("the model read %d command results, want 2: %q", len(seen), seen)
	}
	if !strings.Contains(seen[0], "Exit status 3") || !strings.Contains(seen[0], "FAIL: answer.txt holds 41") {
		t.Errorf("first result %q, want the exit status 3 and the failing output", seen[0])
	}
	if !strings.Contains(seen[1], "Exit status 0") || !strings.Contains(seen[1], "PASS") {
		t.Errorf("second result %q, want exit status 0 and PASS", seen[1])
	}
}

func TestACommandNeverSeesTheAppsDatabaseFolder(t *testing.T) {
	needSandbox(t)
	b := newUndoBench(t, func(c *Config) {})
	// the app's data folder inside the workspace: protected, and hidden from commands
	dataDir := filepath.Join(b.dir, "appdata")
	if err := os.MkdirAll(dataDir, 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dataDir, "secret.db"), []byte("SECRET"), 0o600); err != nil {
		t.Fatal(err)
	}
	b.a.cfg.Tools = WorkspaceTools(tools.WorkspaceOptions{Commands: true, ProtectedDirs: []string{dataDir}, ProtectedFiles: []string{filepath.Join(dataDir, "secret.db")}})
	b.allowCommands()
	b.run(commandCall("c1", "cat appdata/secret.db 2>/dev/null; ls appdata; echo written > appdata/x"))
	evs := b.rec.events()
	_, d := commandDetails(t, evs, "c1")
	for _, e := range ofType(evs, events.ToolOutput) {
		if strings.Contains(e.Text, "SECRET") || strings.Contains(e.Text, "secret.db") {
			t.Errorf("the command saw the app's data: %q", e.Text)
		}
	}
	if _, err := os.Stat(filepath.Join(dataDir, "x")); err == nil {
		t.Errorf("the command wrote into the app's data folder (details %+v)", d)
	}
}

func TestACommandApprovedByPatternWithNetworkMakesARuleThatRunsTheNextOneWithoutAsking(t *testing.T) {
	needSandbox(t)
	b := newUndoBench(t, func(c *Config) {
		c.Tools = WorkspaceTools(tools.WorkspaceOptions{Commands: true})
		c.Approve = ""
	})
	out := b.run(commandCall("c1", "echo first > one.txt"))
	if out.StopReason != events.StopAwaitingApproval {
		t.Fatalf("stop %s, want the command to wait for approval", out.StopReason)
	}
	reqs := ofType(b.rec.events(), events.ToolApprovalRequest)
	pv, _ := reqs[0].Preview.(*tools.Preview)
	if pv == nil || pv.Command == nil || pv.Command.Command != "echo first > one.txt" || pv.Command.Pattern != "echo first" {
		t.Fatalf("preview %+v, want the command line and its suggested pattern", reqs[0].Preview)
	}
	if err := b.a.AllowCommand("c1", true, "echo"); err != nil {
		t.Fatal(err)
	}
	b.rec.waitFor(t, "the approved run finished", finished(2))
	b.want("one.txt", "first\n", 0o644)
	if _, d := commandDetails(t, b.rec.events(), "c1"); !d.Network {
		t.Errorf("details %+v, want the command run with network as allowed", d)
	}
	s, _ := b.db.Settings()
	if r, ok := s.CommandRule(b.dir, "echo again"); !ok || r.Pattern != "echo" || !r.Network {
		t.Fatalf("rules %+v, want echo allowed with network in %s", s.CommandRules, b.dir)
	}
	if out := b.run(commandCall("c2", "echo second > two.txt")); out.StopReason != events.StopCompleted {
		t.Fatalf("stop %s, want the rule to run the command without asking", out.StopReason)
	}
	b.want("two.txt", "second\n", 0o644)
	if _, d := commandDetails(t, b.rec.events(), "c2"); !d.Network {
		t.Errorf("details %+v, want the rule's network", d)
	}
	// a rule never covers a line that chains another command
	if out := b.run(commandCall("c3", "echo x; touch three.txt")); out.StopReason != events.StopAwaitingApproval {
		t.Fatalf("stop %s, want a chained command to ask", out.StopReason)
	}
}

func TestACommandOnTheDenyListIsRefusedWithTheReasonEvenUnderAuto(t *testing.T) {
	b := newCommandBench(t)
	b.run(commandCall("c1", "make && sudo make install"))
	evs := b.rec.events()
	res, _ := commandDetails(t, evs, "c1")
	if res.OK == nil || *res.OK || !strings.Contains(res.Output, `"sudo"`) || !strings.Contains(res.Output, "commandDeny") {
		t.Fatalf("result %+v, want a refusal naming the pattern and where to change it", res)
	}
}

func TestStopEndsACommandThatIgnoresTermAndEverythingItForked(t *testing.T) {
	needSandbox(t)
	b := newCommandBench(t)
	marker := fmt.Sprintf("%d.%d", 300+os.Getpid()%100, time.Now().UnixNano()%1000)
	command := "trap '' TERM; (trap '' TERM; sleep " + marker + ") & echo started; sleep " + marker + "; wait"
	took, res := stopCommandWhen(t, b, command, "the command's output", func(evs []events.Event) bool {
		for _, e := range ofType(evs, events.ToolOutput) {
			if strings.Contains(e.Text, "started") {
				return true
			}
		}
		return false
	})
	if !res.Stopped {
		t.Errorf("result %+v, want the call stopped", res)
	}
	if left := processesWith(t, "sleep "+marker); len(left) > 0 {
		t.Fatalf("processes left after Stop: %v", left)
	}
	t.Logf("Stop to the call's result: %s", took)
	if took > 5*time.Second {
		t.Errorf("the stop took %s, want about a second at most", took)
	}
}

// processesWith lists the processes whose command line holds s.
func processesWith(t testing.TB, s string) []string {
	t.Helper()
	dirs, _ := filepath.Glob("/proc/[0-9]*/cmdline")
	var out []string
	for _, p := range dirs {
		b, err := os.ReadFile(p)
		if err != nil {
			continue
		}
		line := strings.ReplaceAll(string(b), "\x00", " ")
		if strings.Contains(line, s) && !strings.Contains(line, "go test") {
			out = append(out, filepath.Base(filepath.Dir(p))+": "+line)
		}
	}
	return out
}

func TestACommandsChangeOfAFileTooLargeToKeepIsRefusedWithoutATerminal(t *testing.T) {
	needSandbox(t)
	b := newCommandBench(t)
	b.setCap(8)
	b.write("big.txt", "more than eight bytes\n", 0o644)
	b.run(commandCall("c1", "echo small > big.txt && echo new > new.txt"))
	b.want("big.txt", "more than eight bytes\n", 0o644)
	b.want("new.txt", "", 0)
	res, _ := commandDetails(t, b.rec.events(), "c1")
	if res.OK == nil || *res.OK || !strings.Contains(res.Output, "big.txt") || !strings.Contains(res.Output, "not applied") {
		t.Fatalf("result %+v, want the change refused, naming big.txt", res)
	}
}

func TestWithoutTheSandboxACommandFailsWithItsSentenceUnlessUnconfinedCommandsIsOn(t *testing.T) {
	// a PATH without bubblewrap: the sandbox cannot start
	bin := t.TempDir()
	for _, p := range []string{"sh", "touch"} {
		target, err := exec.LookPath(p)
		if err != nil {
			t.Skip(p, "is missing")
		}
		if err := os.Symlink(target, filepath.Join(bin, p)); err != nil {
			t.Fatal(err)
		}
	}
	t.Setenv("PATH", bin)
	var b *undoBench
	b = newUndoBench(t, func(c *Config) {
		c.Tools = WorkspaceTools(tools.WorkspaceOptions{Commands: true, UnconfinedCommands: func() bool {
			s, _ := b.db.Settings()
			return s.UnconfinedCommands
		}})
	})
	b.allowCommands()
	b.run(commandCall("c1", "touch made.txt"))
	res, _ := commandDetails(t, b.rec.events(), "c1")
	if res.OK == nil || *res.OK || !strings.Contains(res.Output, "bubblewrap") {
		t.Fatalf("result %+v, want the sandbox's sentence", res)
	}
	b.want("made.txt", "", 0)

	if _, err := b.db.UpdateSettings(func(s *store.Settings) error { s.UnconfinedCommands = true; return nil }); err != nil {
		t.Fatal(err)
	}
	b.run(commandCall("c2", "touch made.txt"))
	res, d := commandDetails(t, b.rec.events(), "c2")
	if res.OK == nil || !*res.OK || !d.Unconfined || !strings.Contains(res.Output, "unconfined") {
		t.Fatalf("result %+v %+v, want the command run unconfined and said so", res, d)
	}
	b.want("made.txt", "", 0o644)
}

// questionApprover answers every question of a terminal with answer, and records them.
type questionApprover struct {
	answer    string
	questions []string
}

func (a *questionApprover) Approve(_ context.Context, req ApprovalRequest) (string, string, error) {
	a.questions = append(a.questions, req.Question)
	return a.answer, "", nil
}

func TestATerminalIsAskedBeforeACommandChangesAFileTooLargeToKeep(t *testing.T) {
	needSandbox(t)
	for _, answer := range []string{DecisionAllow, DecisionDeny} {
		t.Run(answer, func(t *testing.T) {
			b := newUndoBench(t, func(c *Config) {
				c.Tools = WorkspaceTools(tools.WorkspaceOptions{Commands: true})
				c.Approve = ""
			})
			b.allowCommands()
			b.setCap(8)
			b.write("big.txt", "more than eight bytes\n", 0o644)
			asker := &questionApprover{answer: answer}
			b.mu.Lock()
			b.calls = []store.ToolCall{commandCall("c1", "echo small > big.txt")}
			b.mu.Unlock()
			if _, err := b.a.RunOnce(t.Context(), "", "go", RunOptions{Workspace: b.dir, Approver: asker}); err != nil {
				t.Fatal(err)
			}
			if len(asker.questions) != 1 || !strings.Contains(asker.questions[0], "big.txt") {
				t.Fatalf("questions %q, want one naming big.txt", asker.questions)
			}
			res, d := commandDetails(t, b.rec.events(), "c1")
			if answer == DecisionAllow {
				b.want("big.txt", "small\n", 0o644)
				if len(d.NotUndoable) != 1 || d.NotUndoable[0] != "big.txt" {
					t.Errorf("details %+v, want big.txt said to be beyond undo", d)
				}
				return
			}
			b.want("big.txt", "more than eight bytes\n", 0o644)
			if res.OK == nil || *res.OK || !strings.Contains(res.Output, "not applied") {
				t.Errorf("result %+v, want the change not applied", res)
			}
		})
	}
}

func TestACommandThatMadeAFolderUnreadableIsUndoneAndRedone(t *testing.T) {
	needSandbox(t)
	b := newCommandBench(t)
	locked, in := filepath.Join(b.dir, "locked"), filepath.Join(b.dir, "locked", "in")
	t.Cleanup(func() { os.Chmod(locked, 0o755); os.Chmod(in, 0o755) }) // so that the folder can be removed
	wantLocked := func() {
		t.Helper()
		for _, p := range []string{locked, in} { // entered by giving the owner the permission back
			if fi, err := os.Lstat(p); err != nil || !fi.IsDir() || fi.Mode().Perm() != 0 {
				t.Fatalf("%s: %v, %v; want a folder of mode 0", p, fi, err)
			}
			os.Chmod(p, 0o700)
		}
		b.want("locked/in/f", "x\n", 0o644)
		os.Chmod(in, 0)
		os.Chmod(locked, 0)
	}
	out := b.run(commandCall("c1", "mkdir -p locked/in && echo x > locked/in/f && chmod 0 locked/in locked"))
	if res, d := commandDetails(t, b.rec.events(), "c1"); res.OK == nil || !*res.OK || d.ExitCode != 0 {
		t.Fatalf("result %+v %+v (%+v), want a command that ran with exit status 0", res, d, out)
	}
	wantLocked()

	b.undo(UndoOptions{})
	b.want("locked", "", 0)

	b.redo()
	wantLocked()
}

// stopCommandWhen runs command as the call c1 of a run in b's chat (made first), calls Stop
// once the events recorded satisfy at (what names that moment), and returns the time from
// Stop to the run's end and the call's result.
func stopCommandWhen(t *testing.T, b *undoBench, command, what string, at func([]events.Event) bool) (time.Duration, events.Event) {
	t.Helper()
	b.run() // makes the chat
	done := make(chan struct{})
	go func() {
		defer close(done)
		b.mu.Lock()
		b.calls = []store.ToolCall{commandCall("c1", command)}
		b.mu.Unlock()
		_, _ = b.a.RunOnce(b.t.Context(), b.chat, "go", RunOptions{Workspace: b.dir})
	}()
	// Waited for as long as the run goes on, not for a fixed time: a loaded machine takes
	// minutes over the 30,000 files a command leaves, and only a run that ended first fails.
	b.rec.waitForDuring(t, what, at, done)
	stopped := time.Now()
	if err := b.a.Stop(b.chat); err != nil {
		t.Fatal(err)
	}
	<-done
	took := time.Since(stopped)
	res, _ := commandDetails(t, b.rec.events(), "c1")
	return took, res
}

// stopCommandAt runs a command that leaves n files in many/, calls Stop when the events
// recorded satisfy at, logs the time from Stop to the run's end, and returns the call's result
// and the number of files of many/ then.
func stopCommandAt(t *testing.T, n int, at func([]events.Event) bool) (events.Event, int) {
	t.Helper()
	b := newCommandBench(t)
	took, res := stopCommandWhen(t, b, fmt.Sprintf("mkdir many && cd many && seq 1 %d | xargs touch && echo made", n), "the moment to stop", at)
	entries, _ := os.ReadDir(filepath.Join(b.dir, "many"))
	t.Logf("Stop to the run's end: %s; result %q (stopped %v); %d of %d files in the workspace", took, res.Output, res.Stopped, len(entries), n)
	return res, len(entries)
}

// Stop once a command's change set is checkpointed (30,000 files, applied over seconds) ends
// the call with nothing applied: before the apply starts, or with what was applied taken back.
func TestACommandStoppedOnceItsChangesAreCheckpointedAppliesNothing(t *testing.T) {
	needSandbox(t)
	for name, at := range map[string]func([]events.Event) bool{
		"as its output ends": func(evs []events.Event) bool {
			for _, e := range ofType(evs, events.ToolOutput) {
				if strings.Contains(e.Text, "made") {
					return true
				}
			}
			return false
		},
		"once checkpointed": func(evs []events.Event) bool { return len(ofType(evs, events.Checkpoint)) > 0 },
	} {
		t.Run(name, func(t *testing.T) {
			res, left := stopCommandAt(t, 30000, at)
			if !res.Stopped || left != 0 {
				t.Errorf("result %q (stopped %v) with %d files applied after Stop; want a stopped call that applied none", res.Output, res.Stopped, left)
			}
		})
	}
}

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
