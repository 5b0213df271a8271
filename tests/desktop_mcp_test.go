package tests

import (
	"strings"
	"testing"
	"time"

	"prototyper/events"
	"prototyper/store"
)

// TestDesktopMCPToolAsksThenRunsAndIsSeenRunning: in the real window, the reference MCP
// server's echo tool (given with --mcp-config) asks first, as every MCP tool does by default;
// approved with Enter, its card is painted running before its result, and the answer follows.
func TestDesktopMCPToolAsksThenRunsAndIsSeenRunning(t *testing.T) {
	cfg := mcpConfigFile(t)
	r := startDesktopRunWith(t, mcpEchoModel, store.Settings{Think: "on"}, "Echo it", withArgs("--mcp-config", cfg))
	r.waitLog(t, events.ToolApprovalRequest, true, 90*time.Second)
	time.Sleep(time.Second) // the card takes the focus once it is painted
	shot := r.app.screenshot("e2e-mcp-approval.png")
	t.Logf("the call waiting for approval: %s", shot)
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
