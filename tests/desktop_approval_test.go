package tests

import (
	"strings"
	"testing"
	"time"

	"prototyper/events"
	"prototyper/store"
)

// approvalRun starts a run whose write_file waits for the user (extra: how the window is
// launched, e.g. the provider's flags), and waits for its card.
func approvalRun(t *testing.T, extra ...launchExtra) *desktopRun {
	t.Helper()
	r := startDesktopRunWith(t, writerModel,
		store.Settings{Think: "on", ToolApproval: map[string]string{"write_file": "ask"}},
		"Write hello.txt with a greeting", extra...)
	r.waitLog(t, events.ToolApprovalRequest, true, 60*time.Second)
	time.Sleep(time.Second) // the card takes the focus once it is painted
	shot := r.app.screenshot("e2e-approval.png")
	if r.hasFile("hello.txt") {
		t.Fatalf("the file was written before the user decided (%s)", shot)
	}
	return r
}

// theOneChat returns the one chat in the store: the chat of the run.
func theOneChat(t *testing.T, db *store.DB) store.Chat {
	t.Helper()
	chats, err := db.ListChats()
	if err != nil || len(chats) != 1 {
		t.Fatalf("chats in the store = %v, %v; want the one chat of the run", chats, err)
	}
	return chats[0]
}

// toolRecord returns the one tool-call record of the run's chat.
func toolRecord(t *testing.T, db *store.DB) store.ToolCallRecord {
	t.Helper()
	calls, err := db.ToolCalls(theOneChat(t, db).ID)
	if err != nil || len(calls) != 1 {
		t.Fatalf("tool records = %+v, %v; want one", calls, err)
	}
	return calls[0]
}

// The card that waits takes the focus on its Approve button (the user was not typing): Enter
// approves, as it would for a person who reads the card and presses Enter.
func TestDesktopApprovalApproveRunsTheCallAndItIsSeenRunning(t *testing.T) {
	eachProvider(t, func(t *testing.T, p provider) {
		r := approvalRun(t, p.window(t))
		r.app.key("Return")
		r.assertWroteHelloSeenRunning(t, r.waitResumedFinished(t, 60*time.Second))
		_, db := r.finish(t, "e2e-approved-"+string(p)+".png")
		rec := toolRecord(t, db)
		if rec.Pending || !rec.OK || rec.Approval == nil || rec.Approval.Decision != "allow" || rec.Approval.By != "user" {
			t.Errorf("tool record = pending %v ok %v approval %+v; want run, allowed by the user", rec.Pending, rec.OK, rec.Approval)
		}
	})
}

// Deny has a shortcut of its own, shown on its button, that works wherever the focus is. (Through
// the native API only: after a denial the model is asked again as after an approval, the
// client path the approval's scenario runs through both providers.)
func TestDesktopApprovalDenyNeverRunsTheCall(t *testing.T) {
	r := approvalRun(t)
	r.app.key("alt+d")
	r.waitResumedFinished(t, 60*time.Second)
	if r.hasFile("hello.txt") {
		t.Error("the file was written although the user denied the call")
	}
	_, db := r.finish(t, "e2e-denied.png")
	rec := toolRecord(t, db)
	if rec.OK || rec.Approval == nil || rec.Approval.Decision != "deny" || !strings.Contains(rec.Output, "denied by the user") {
		t.Errorf("tool record = ok %v approval %+v output %q; want denied by the user", rec.OK, rec.Approval, rec.Output)
	}
}
