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
	time.Sleep(time.Second) // the card's frames settle
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

// Alt+A, the shortcut shown on the card's Approve button, approves the waiting call from the
// composer, where the focus stays.
func TestDesktopApprovalApproveRunsTheCallAndItIsSeenRunning(t *testing.T) {
	eachProvider(t, func(t *testing.T, p provider) {
		r := approvalRun(t, p.window(t))
		r.app.key("alt+a")
		r.assertWroteHelloSeenRunning(t, r.waitResumedFinished(t, 60*time.Second))
		_, db := r.finish(t, "e2e-approved-"+string(p)+".png")
		rec := toolRecord(t, db)
		if rec.Pending || !rec.OK || rec.Approval == nil || rec.Approval.Decision != "allow" || rec.Approval.By != "user" {
			t.Errorf("tool record = pending %v ok %v approval %+v; want run, allowed by the user", rec.Pending, rec.OK, rec.Approval)
		}
	})
}

// Keys typed while a call waits are the user's text, never a decision: the focus stays in the
// composer, which gets all of "hi there" (the space approved the write when the card took the
// focus), the call still waits, and nothing is written.
func TestDesktopTypingWhileACallWaitsNeverApprovesIt(t *testing.T) {
	layoutCanMatter(t)
	r := approvalRun(t)
	r.app.typeText("hi there")
	if !r.app.says("hi there") {
		t.Errorf("the window does not show the typed %q (%s)", "hi there", r.app.screenshot("typing-while-waiting.png"))
	}
	if !r.app.says("waits for your approval: Alt+A approves, Alt+D denies.") {
		t.Error("the window's status line does not say the call waits and how to approve it")
	}
	if !r.app.enabled(r.app.waitControl(rolePushButton, "Approve", 20*time.Second)) {
		t.Error("the Approve button is spent: the typed keys decided the call")
	}
	for _, l := range readBridgeLog(t, r.bridgeLog) {
		for _, e := range l.Events {
			if e.Type == events.ToolApprovalResolved {
				t.Errorf("the call %s was decided while the user typed", e.ToolCallID)
			}
		}
	}
	r.wantFile(t, "hello.txt", "", 0)
	_, db := r.finish(t, "typing-while-waiting-closed.png")
	if rec := toolRecord(t, db); rec.OK || rec.Approval != nil {
		t.Errorf("tool record = ok %v approval %+v; want a call never approved", rec.OK, rec.Approval)
	}
	r.wantFile(t, "hello.txt", "", 0)
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

// previewWaits opens the window on a workspace holding hello.txt, with write_file asking, and
// sends the writer model's prompt: its call of write_file waits with the preview of its change.
func previewWaits(t *testing.T) *desktopRun {
	t.Helper()
	r := startDesktopRunWith(t, writerModel,
		store.Settings{Think: "on", ToolApproval: map[string]string{"write_file": "ask"}}, "")
	r.writeFile(t, "hello.txt", "old greeting\n", 0o644)
	r.app.typeText("Write hello.txt with a greeting")
	r.app.key("Return")
	r.waitLog(t, events.ToolApprovalRequest, true, 60*time.Second)
	return r
}

// A call that waits for approval shows its change; Enter on Approve, once the user put the
// focus there, runs it.
func TestDesktopApproveFromThePreview(t *testing.T) {
	layoutCanMatter(t)
	r := previewWaits(t)
	time.Sleep(time.Second) // the card's frames settle
	shot := r.app.screenshot("preview-approval.png")
	r.wantFile(t, "hello.txt", "old greeting\n", 0o644)
	if n, _ := colourCount(t, shot, 256); n < 32 {
		t.Errorf("the approval screenshot shows %d colours (%s)", n, shot)
	}
	r.app.focus("Approve")
	r.app.key("Return")
	r.waitResumedFinished(t, 60*time.Second)
	r.wantFile(t, "hello.txt", "hello from Prototyper\n", 0o644)
	_, db := r.finish(t, "preview-approved.png")
	rec := toolRecord(t, db)
	if rec.Preview == nil || !strings.Contains(rec.Preview.Diff, "+hello from Prototyper") || !strings.Contains(rec.Preview.Diff, "-old greeting") {
		t.Errorf("the waiting call's preview %+v, want the diff of hello.txt", rec.Preview)
	}
	if rec.Approval == nil || rec.Approval.By != store.ByUser {
		t.Errorf("approval %+v, want the user's", rec.Approval)
	}
}

// Alt+R opens the reason field of the waiting call; what is typed there reaches the model as
// the call's result, and the call never runs.
func TestDesktopDenyAndTellTheModelWhy(t *testing.T) {
	layoutCanMatter(t)
	r := approvalRun(t)
	r.openAndType("alt+r", "write it in docs instead", "deny-reason.png")
	r.app.key("Return")
	r.waitResumedFinished(t, 60*time.Second)
	r.wantFile(t, "hello.txt", "", 0)
	_, db := r.finish(t, "deny-with-reason.png")
	rec := toolRecord(t, db)
	if rec.Approval == nil || rec.Approval.Decision != store.DecisionDeny || !strings.Contains(rec.Output, "write it in docs instead") {
		t.Errorf("record: approval %+v, output %q; want denied with the user's reason for the model", rec.Approval, rec.Output)
	}
}

// Alt+L allows the waiting call and its tool for good in this workspace: the settings keep it.
func TestDesktopAlwaysAllowHereRunsTheCallAndRemembersIt(t *testing.T) {
	r := approvalRun(t)
	r.app.key("alt+l")
	r.waitResumedFinished(t, 60*time.Second)
	r.wantFile(t, "hello.txt", "hello from Prototyper\n", 0o644)
	_, db := r.finish(t, "always-allowed.png")
	s, err := db.Settings()
	if err != nil {
		t.Fatal(err)
	}
	if !s.AllowedIn(r.workspace, "write_file") {
		t.Errorf("settings allow %v, want write_file in %s", s.AlwaysAllow, r.workspace)
	}
}

// An approval holds for the change the user saw: hello.txt changed (here by another program)
// while its preview waited is not written over when the user approves; the card says why.
func TestDesktopAnApprovalOverAFileChangedSinceItsPreviewWritesNothing(t *testing.T) {
	r := previewWaits(t)
	r.writeFile(t, "hello.txt", "changed meanwhile\n", 0o644)
	r.app.key("alt+a")
	r.waitResumedFinished(t, 60*time.Second)
	r.wantFile(t, "hello.txt", "changed meanwhile\n", 0o644)
	if !r.app.says("changed after its change was shown for approval") {
		t.Errorf("the card does not say why the approved call did not run: %s", r.app.screenshot("approval-stale-preview.png"))
	}
	r.finish(t, "approval-stale-preview-end.png")
}

// A folder picked while a call waits for approval can only start a new chat: the window says
// so in the question, before anything is refused, and the call still waits for its answer.
func TestDesktopAFolderPickedWhileACallWaitsOffersANewChat(t *testing.T) {
	r := approvalRun(t)
	r.typeFolder(t.TempDir())
	if !r.app.says("stop it or answer first to change it") {
		t.Errorf("the question does not say why this chat cannot change (%s)", r.app.screenshot("folder-while-waiting.png"))
	}
	r.app.screenshot("folder-while-waiting.png")
	if change := r.app.waitControl(rolePushButton, "Change this chat", 20*time.Second); r.app.enabled(change) {
		t.Error("Change this chat is offered while the chat waits for an approval")
	}
	r.app.key("Escape")
	r.waitComposerFocus()
	r.app.key("alt+a")
	r.waitResumedFinished(t, 60*time.Second)
	r.wantWritten(t, "hello.txt", "hello from Prototyper\n")
	r.finish(t, "folder-while-waiting-end.png")
}

// A call that cannot succeed as it is (here an edit whose text is not in the file) says so on
// its card while it waits, so that the user decides knowing it; denied, nothing is written.
func TestDesktopAnApprovalCardSaysWhenTheCallCannotSucceed(t *testing.T) {
	r := startDesktopRunWith(t, failedEditModel, store.Settings{Think: "off", ToolApproval: map[string]string{"edit_file": "ask"}}, "")
	r.writeFile(t, "a.txt", "original\n", 0o600)
	r.app.typeText("Change a.txt")
	r.app.key("Return")
	r.waitLog(t, events.ToolApprovalRequest, true, 60*time.Second)
	if !r.app.says("This call cannot succeed as it is: old_string was not found in") {
		t.Errorf("the waiting card does not say the edit cannot succeed (%s)", r.app.screenshot("approval-fails.png"))
	}
	r.app.screenshot("approval-fails.png")
	r.app.key("alt+d")
	r.waitResumedFinished(t, 60*time.Second)
	r.wantFile(t, "a.txt", "original\n", 0o600)
	r.finish(t, "approval-fails-denied.png")
}

// TestDesktopApprovingAWriteThatChangesNothingSaysSo: a write_file whose content is the file's
// asks as any write does, and its card says that nothing changes, not that the file is edited.
func TestDesktopApprovingAWriteThatChangesNothingSaysSo(t *testing.T) {
	r := startDesktopRunWith(t, writerModel, store.Settings{Think: "on", ToolApproval: map[string]string{"write_file": "ask"}}, "")
	r.writeFile(t, "hello.txt", "hello from Prototyper\n", 0o644) // what the model writes
	r.app.typeText("Write hello.txt with a greeting")
	r.app.key("Return")
	r.waitLog(t, events.ToolApprovalRequest, true, 60*time.Second)
	const same = "Nothing changes: the content is the same as hello.txt’s"
	if said := r.app.waitTexts(func(s string) bool { return strings.Contains(s, same) }, 20*time.Second); len(said) == 0 {
		t.Fatalf("the card of a write that changes nothing does not say %q; it says %q (%s)",
			same, r.app.textsWith("hello.txt"), r.app.screenshot("approval-unchanged.png"))
	}
	if said := r.app.textsWith("Will edit"); len(said) != 0 {
		t.Errorf("the card of a write that changes nothing says %q (%s)", said, r.app.screenshot("approval-unchanged.png"))
	}
	r.app.screenshot("approval-unchanged.png")
	r.app.key("alt+a")
	r.waitResumedFinished(t, 60*time.Second)
	r.wantFile(t, "hello.txt", "hello from Prototyper\n", 0o644)
}
