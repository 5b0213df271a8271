package tests

import (
	"context"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	sdk "github.com/coder/acp-go-sdk"

	"prototyper/internal/ollamatest"
	"prototyper/internal/testenv"
	"prototyper/internal/tether"
)

// acpSleeperModel runs a command that would outlive any test, then answers.
var acpSleeperModel = ollamatest.Model{Name: "acp-sleeper", Scripts: ollamatest.Scripts{
	"SU":   ollamatest.ToolCall("run_command", map[string]any{"command": "sleep 300"}),
	"SUAT": []string{"Slept."},
}}

// TestACPEndsItsRunsAndLeavesNoProcessWhenTheEditorGoes: while a command of a prompt runs,
// the editor closing the agent's stdin, or a SIGTERM or SIGINT, ends `prototyper acp`
// successfully, and nothing it started (the sandbox, the command) outlives it.
func TestACPEndsItsRunsAndLeavesNoProcessWhenTheEditorGoes(t *testing.T) {
	testenv.LookPath(t, "", "bwrap", "install the package bubblewrap (scripts/install-deps.sh does)")
	for _, how := range []string{"stdin closed", "SIGTERM", "SIGINT"} {
		t.Run(how, func(t *testing.T) {
			a := startACP(t, filepath.Join(t.TempDir(), "p.db"), "--model", acpSleeperModel.Name)
			id := newACPSession(t, a.conn, t.TempDir(), "auto")
			go func() {
				_, _ = a.conn.Prompt(context.Background(), sdk.PromptRequest{SessionId: id, Prompt: []sdk.ContentBlock{sdk.TextBlock("Sleep")}})
			}()
			deadline := time.After(2 * time.Minute)
			var tree []int
			for {
				if _, statuses, _ := callStatuses(a.client.of(id)); len(statuses) > 0 && statuses[len(statuses)-1] == sdk.ToolCallStatusInProgress {
					if tree = tether.Descendants(a.cmd.Process.Pid); sleeping(tree) {
						break
					}
				}
				select {
				case <-a.client.seen:
				case <-time.After(50 * time.Millisecond):
				case <-deadline:
					t.Fatalf("the command never ran; updates %+v", a.client.of(id))
				}
			}
			switch how {
			case "SIGTERM":
				_ = a.cmd.Process.Signal(syscall.SIGTERM)
			case "SIGINT":
				_ = a.cmd.Process.Signal(syscall.SIGINT)
			}
			if how != "stdin closed" { // it ends on the signal alone, its stdin still open
				for limit := time.Now().Add(30 * time.Second); ; time.Sleep(20 * time.Millisecond) {
					if state, _ := testenv.ProcStat(a.cmd.Process.Pid); state == "Z" || state == "" {
						break
					}
					if time.Now().After(limit) {
						t.Fatalf("prototyper acp still ran 30s after %s", how)
					}
				}
			}
			a.end() // reaps it, and fails the test unless it ended successfully
			testenv.WaitTreeGone(t, tree, 30*time.Second)
		})
	}
}

// sleeping reports whether one of pids is the command's sleep.
func sleeping(pids []int) bool {
	for _, pid := range pids {
		if raw, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/comm"); err == nil && strings.TrimSpace(string(raw)) == "sleep" {
			return true
		}
	}
	return false
}

// TestACPSaysItsVersionInInitialize: agentInfo names the build, which an editor shows and
// reports issues with.
func TestACPSaysItsVersionInInitialize(t *testing.T) {
	a := startACP(t, filepath.Join(t.TempDir(), "p.db"))
	if a.init.AgentInfo == nil || a.init.AgentInfo.Version == "" {
		t.Errorf("agentInfo = %+v, want the build's version", a.init.AgentInfo)
	}
}

// TestACPRunsTwoSessionsAtOnceEachWithItsOwnUpdates: two sessions of one process, in two
// folders, prompted together, each end their turn with their own file written and only their
// own updates.
func TestACPRunsTwoSessionsAtOnceEachWithItsOwnUpdates(t *testing.T) {
	a := startACP(t, filepath.Join(t.TempDir(), "p.db"), "--model", acpWriterModel.Name)
	wsA, wsB := t.TempDir(), t.TempDir()
	idA, idB := newACPSession(t, a.conn, wsA, "auto"), newACPSession(t, a.conn, wsB, "auto")
	type result struct {
		resp sdk.PromptResponse
		err  error
	}
	ended := map[sdk.SessionId]chan result{idA: make(chan result, 1), idB: make(chan result, 1)}
	for id, ch := range ended {
		go func() {
			resp, err := a.conn.Prompt(acpCtx(t), sdk.PromptRequest{SessionId: id, Prompt: []sdk.ContentBlock{sdk.TextBlock("Write hello.txt")}})
			ch <- result{resp, err}
		}()
	}
	for id, ws := range map[sdk.SessionId]string{idA: wsA, idB: wsB} {
		r := <-ended[id]
		if r.err != nil || r.resp.StopReason != sdk.StopReasonEndTurn {
			t.Errorf("session %s answered %+v, %v; want end_turn", id, r.resp, r.err)
		}
		if b, err := os.ReadFile(filepath.Join(ws, "hello.txt")); err != nil || string(b) != "hello from the editor\n" {
			t.Errorf("session %s's hello.txt = %q, %v", id, b, err)
		}
		ups := a.client.of(id)
		if got := chunks(ups, "answer"); got != "Finished with `hello.txt`." {
			t.Errorf("session %s's answer %q, want its own answer once", id, got)
		}
		if _, statuses, _ := callStatuses(ups); len(statuses) == 0 || statuses[len(statuses)-1] != sdk.ToolCallStatusCompleted {
			t.Errorf("session %s's call went %v, want completed", id, statuses)
		}
	}
}
