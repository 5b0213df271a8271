package tests

import (
	"bufio"
	"encoding/json"
	"path/filepath"
	"strings"
	"testing"

	"prototyper/internal/ollamatest"
	"prototyper/internal/testenv"
)

// TestCLIRunJSONShowsACommandsOutputAndTheModelFixesWhatFailed: `prototyper run --json` with
// the real server and a scripted model that writes a Python project, runs its test, reads it
// fail, fixes the file and runs it again: every line of output comes as tool.output before
// its call's result, whose details say the exit status.
func TestCLIRunJSONShowsACommandsOutputAndTheModelFixesWhatFailed(t *testing.T) {
	testenv.LookPath(t, "", "bwrap", "install the package bubblewrap (scripts/install-deps.sh does)")
	srv := ollamatest.Get(t)
	ws := t.TempDir()
	out, errOut, code := cliRun(t, "run", "--json", "--ollama", srv.URL(), "--db", filepath.Join(t.TempDir(), "p.db"), "--workspace", ws,
		"--model", commandLoopModel.Name, "--approve", "auto", "Write calc.py and test it")
	if code != 0 {
		t.Fatalf("exit status %d; stderr:\n%s", code, errOut)
	}
	type event struct {
		Type, ToolCallID, Name, Stream, Text string
		OK                                   *bool
		Details                              struct {
			Command *struct {
				ExitCode int `json:"exitCode"`
			} `json:"command"`
		}
	}
	var (
		results []event
		output  = map[string]*strings.Builder{}
	)
	sc := bufio.NewScanner(strings.NewReader(out))
	sc.Buffer(make([]byte, 1<<20), 1<<20)
	for sc.Scan() {
		var e event
		if err := json.Unmarshal(sc.Bytes(), &e); err != nil {
			t.Fatalf("line %q: %v", sc.Text(), err)
		}
		switch e.Type {
		case "tool.output":
			if output[e.ToolCallID] == nil {
				output[e.ToolCallID] = &strings.Builder{}
			}
			for _, r := range results {
				if r.ToolCallID == e.ToolCallID {
					t.Errorf("output of %s after its result: %q", e.ToolCallID, e.Text)
				}
			}
			output[e.ToolCallID].WriteString(e.Text)
		case "tool.result":
			if e.Name == "run_command" {
				results = append(results, e)
			}
		}
	}
	if len(results) != 2 {
		t.Fatalf("%d run_command results, want 2:\n%s", len(results), out)
	}
	first, second := results[0], results[1]
	if first.Details.Command == nil || first.Details.Command.ExitCode == 0 || first.OK == nil || !*first.OK {
		t.Errorf("first run: %+v, want it run with a failing exit status", first)
	}
	if second.Details.Command == nil || second.Details.Command.ExitCode != 0 {
		t.Errorf("second run: %+v, want exit status 0", second)
	}
	if o := output[first.ToolCallID]; o == nil || !strings.Contains(o.String(), "testing calc.add") || !strings.Contains(o.String(), "FAILED") {
		t.Errorf("first run's output %v, want the test's lines and its failure", o)
	}
	if o := output[second.ToolCallID]; o == nil || !strings.Contains(o.String(), "OK") {
		t.Errorf("second run's output %v, want the test passing", o)
	}
	wantContent(t, filepath.Join(ws, "calc.py"), calcFixed)
}
