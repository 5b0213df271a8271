package tests

import (
	"fmt"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	"prototyper/agentloop"
	"prototyper/events"
	"prototyper/store"
)

// TestDesktopMCPToolAsksThenRunsAndIsSeenRunning: in the real window, the reference MCP
// server's echo tool (given with --mcp-config) asks first, as every MCP tool does by default;
// approved with Enter on its Approve button (the user put the focus there), its card is painted running before its result, and the answer follows.
func TestDesktopMCPToolAsksThenRunsAndIsSeenRunning(t *testing.T) {
	cfg := mcpConfigFile(t)
	r := startDesktopRunWith(t, mcpEchoModel, store.Settings{Think: "on"}, "Echo it", withArgs("--mcp-config", cfg))
	r.waitLog(t, events.ToolApprovalRequest, true, 90*time.Second)
	time.Sleep(time.Second) // the card's frames settle
	shot := r.app.screenshot("e2e-mcp-approval.png")
	t.Logf("the call waiting for approval: %s", shot)
	r.app.focus("Approve")
	r.app.key("Return")
	lines := r.waitResumedFinished(t, 60*time.Second)
	if ids := assertEveryCallPaintedRunningBeforeItsResult(t, lines); len(ids) != 1 {
		t.Errorf("tool results sent: %v, want one (mcp__everything__echo)", ids)
	}
	shot, db := r.finish(t, "e2e-mcp.png")
	t.Logf("after the run: %s", shot)
	rec := toolRecord(t, db)
	if rec.Name != "mcp__everything__echo" || !rec.OK || rec.Output != "Echo: hello through MCP" || rec.Approval == nil || rec.Approval.By != "user" {
		t.Errorf("tool record = %+v", rec)
	}
	chats, _ := db.ListChats()
	msgs, err := db.Messages(chats[0].ID)
	if err != nil || !strings.Contains(msgs[len(msgs)-1].Content, "echoed it.") {
		t.Errorf("messages = %+v, %v", msgs, err)
	}
}

// mcpToolAllowed are the settings of a user who let the reference server's long operation run
// without asking (a policy per tool).
func mcpToolAllowed() store.Settings {
	return store.Settings{Think: "on", ToolApproval: map[string]string{mcpLongOperation: agentloop.ApproveAuto}}
}

// progressOfThree is how a card says a step of three is done.
var progressOfThree = regexp.MustCompile(`\b[123]/3\b`)

// TestDesktopMCPProgressIsSeenOnTheRunningCard: the reference server's long operation (three
// steps of two seconds, each a progress notification), allowed by its own policy, is painted
// running, then its tool.progress updates are painted while it still runs (a screen reader
// reads "n/3" on the card), then it is completed.
func TestDesktopMCPProgressIsSeenOnTheRunningCard(t *testing.T) {
	r := startDesktopRunWith(t, mcpLongModel, mcpToolAllowed(), "Run the long operation of everything", withArgs("--mcp-config", mcpConfigFile(t)))
	r.waitLog(t, events.ToolProgress, true, 90*time.Second)
	said := r.app.waitTexts(progressOfThree.MatchString, 10*time.Second)
	t.Logf("the card while it runs: %s, read as %q", r.app.screenshot("e2e-mcp-progress.png"), said)
	if len(said) == 0 {
		t.Error("no text of the window says how far the call is (n/3)")
	}
	lines := r.waitFinished(t, 60*time.Second)
	ids := assertEveryCallPaintedRunningBeforeItsResult(t, lines)
	if len(ids) != 1 {
		t.Fatalf("tool results sent: %v, want one", ids)
	}
	if n := progressPaintedRunning(lines, ids[0]); n < 2 {
		t.Errorf("%d progress updates were painted on the running card, want at least 2 of the 3 steps\n%s", n, bridgeLogText(lines))
	}
	_, db := r.finish(t, "e2e-mcp-progress-end.png")
	if rec := toolRecord(t, db); rec.Name != mcpLongOperation || !rec.OK || !strings.HasPrefix(rec.Output, "Long running operation completed.") {
		t.Errorf("tool record = %+v", rec)
	}
}

// progressPaintedRunning counts the tool.progress events of call id that an acknowledgement
// covered while it still listed the card as running.
func progressPaintedRunning(lines []bridgeLine, id string) int {
	var sent []uint64
	painted := map[uint64]bool{}
	for _, l := range lines {
		switch l.Kind {
		case events.LogKindBatch:
			for _, e := range l.Events {
				if e.Type == events.ToolProgress && e.ToolCallID == id {
					sent = append(sent, e.Seq)
				}
			}
		case events.LogKindAck:
			if slices.Contains(l.Running, id) {
				for _, seq := range sent {
					painted[seq] = painted[seq] || seq <= l.Seq
				}
			}
		}
	}
	n := 0
	for _, p := range painted {
		if p {
			n++
		}
	}
	return n
}

// TestDesktopStopEndsAHungMCPCallWithinASecond: a call the reference server accepts and does
// not answer is painted running; Esc stops the run within a second, the card is drawn
// stopped (not failed) with one sentence, `chats show` says the same, and once the window
// closes no process of the server is left.
func TestDesktopStopEndsAHungMCPCallWithinASecond(t *testing.T) {
	marker := fmt.Sprintf("PROTOTYPER_TEST_MARKER=%d", time.Now().UnixNano())
	name, value, _ := strings.Cut(marker, "=")
	cfg := mcpConfigFile(t, map[string]any{"env": map[string]string{name: value}})
	r := startDesktopRunWith(t, mcpHangModel, mcpToolAllowed(), "Run the long operation of everything", withArgs("--mcp-config", cfg))
	r.waitPaintedRunning(t, 90*time.Second)
	time.Sleep(500 * time.Millisecond) // the call reaches the server
	r.app.screenshot("e2e-mcp-hung.png")
	stopped := time.Now()
	r.app.key("Escape")
	lines := r.waitFinished(t, 30*time.Second)
	took := sentAt(t, lines, events.RunFinished).Sub(stopped)
	t.Logf("the run finished %s after Esc", took)
	if took > time.Second {
		t.Errorf("the run finished %s after Esc, want within a second", took)
	}
	if last := lines[len(lines)-1]; last.Kind != events.LogKindAck || len(last.Running) != 0 {
		t.Errorf("the window's last acknowledgement still lists running cards: %+v", last)
	}
	// the card is drawn stopped, with the server's sentence, and nothing says it failed
	said := r.app.waitTexts(func(s string) bool {
		return strings.HasPrefix(s, "Stopped while it ran: the run was stopped while the MCP server everything ran this call")
	}, 10*time.Second)
	if len(said) == 0 {
		t.Error("the card does not say that the call was stopped while it ran")
	}
	if badge := r.app.texts(func(s string) bool { return s == "stopped" }); len(badge) == 0 {
		t.Error("the card's badge does not say stopped")
	}
	if failed := r.app.textsWith("failed"); len(failed) != 0 {
		t.Errorf("the window says a call failed: %q", failed)
	}
	_, db := r.finish(t, "e2e-mcp-stopped.png")
	if rec := toolRecord(t, db); rec.OK || rec.Pending || !rec.Stopped || !strings.HasPrefix(rec.Output, "stopped: ") || strings.Contains(rec.Output, "\n") {
		t.Errorf("tool record = %+v, want stopped, with one sentence saying so", rec)
	}
	// the command line reads the chat as the window drew it (the store let go first: one
	// process holds it at a time)
	chatID := theOneChat(t, db).ID
	runs, runsErr := db.RunsOf(chatID)
	db.Close()
	if out, errOut, code := cliRun(t, "chats", "show", chatID, "--db", r.db); code != 0 ||
		!strings.Contains(out, "stopped while it ran") || strings.Contains(out, "failed") {
		t.Errorf("chats show (exit %d) should say the call was stopped while it ran, never failed:\n%s%s", code, out, errOut)
	}
	if runsErr != nil || len(runs) != 1 || runs[0].StopReason != events.StopAborted {
		t.Errorf("runs = %+v, %v; want the one run, stopped", runs, runsErr)
	}
	if pids := waitMarked(t, marker, func(n int) bool { return n == 0 }, 3*time.Second); len(pids) != 0 {
		t.Errorf("after the window closed, the server still runs: %v", pids)
	}
}

// waitPaintedRunning waits until an acknowledgement lists a tool card painted running.
func (r *desktopRun) waitPaintedRunning(t *testing.T, timeout time.Duration) {
	t.Helper()
	for deadline := time.Now().Add(timeout); time.Now().Before(deadline); time.Sleep(100 * time.Millisecond) {
		for _, l := range readBridgeLog(t, r.bridgeLog) {
			if l.Kind == events.LogKindAck && len(l.Running) > 0 {
				return
			}
		}
	}
	t.Fatalf("no card was painted running within %s; bridge log:\n%s", timeout, mustRead(r.bridgeLog))
}

// sentAt is when the bridge sent the first event of type typ.
func sentAt(t *testing.T, lines []bridgeLine, typ events.Type) time.Time {
	t.Helper()
	for _, l := range lines {
		for _, e := range l.Events {
			if e.Type == typ {
				at, err := time.Parse(time.RFC3339Nano, l.At)
				if err != nil {
					t.Fatal(err)
				}
				return at
			}
		}
	}
	t.Fatalf("no %s sent", typ)
	return time.Time{}
}
