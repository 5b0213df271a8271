package tests

import (
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"prototyper/events"
	"prototyper/internal/ollamatest"
	"prototyper/store"
)

// settle lets the window apply a key's effect (a menu opening, a chat loading) before the next.
func settle() { time.Sleep(900 * time.Millisecond) }

// typeFolder opens the folder menu (Ctrl+O), types dir and picks it with Enter.
func (r *desktopRun) typeFolder(dir string) {
	r.openField("ctrl+o")
	r.app.typeText(dir)
	r.app.key("Return")
	settle()
}

// newChatFrom presses Ctrl+N in a chat whose transcript shows words, and waits until the
// window shows the new chat in its place (a loaded machine may take a second or two).
func (r *desktopRun) newChatFrom(words string) {
	r.app.tb.Helper()
	r.app.key("ctrl+n")
	if !r.app.waitNoText(words, 30*time.Second) {
		r.app.tb.Fatalf("Ctrl+N does not open a new chat: the window still shows %q (%s)", words, r.app.screenshot("new-chat.png"))
	}
}

// openAndType presses key (a shortcut that opens a field), types text there and keeps a
// screenshot of what the window shows then.
func (r *desktopRun) openAndType(key, text, shot string) {
	r.openField(key)
	r.app.typeText(text)
	settle()
	r.app.screenshot(shot)
}

// fieldOf is the field each shortcut that opens one gives the keyboard focus to: its role and
// the beginning of its accessible name.
var fieldOf = map[string]struct {
	role a11yRole
	name string
}{
	"ctrl+o": {roleComboBox, "Folder path"},
	"ctrl+k": {roleComboBox, "Search chats"},
	"ctrl+m": {roleComboBox, "Filter the models"},
	"alt+r":  {roleEntry, "Why the call is denied"},
}

// openField presses key, a shortcut of fieldOf, and waits until its field has the focus.
func (r *desktopRun) openField(key string) {
	r.app.tb.Helper()
	f, ok := fieldOf[key]
	if !ok {
		r.app.tb.Fatalf("no field is known to open with %s", key)
	}
	r.app.key(key)
	if f.role == roleComboBox {
		r.app.waitComboFocus(f.name, 30*time.Second)
		return
	}
	r.app.waitFocus(f.role, f.name, 30*time.Second)
}

// roleListItem is ATSPI_ROLE_LIST_ITEM: WebKit's role for a listbox's option.
const roleListItem a11yRole = 32

// waitComboFocus waits until the combobox named name… has the keyboard: WebKit then says the
// field is focused, or, once its list has an active option (aria-activedescendant), that option.
func (a *desktopApp) waitComboFocus(name string, timeout time.Duration) {
	a.tb.Helper()
	for deadline := time.Now().Add(timeout); time.Now().Before(deadline); time.Sleep(200 * time.Millisecond) {
		field, focused := false, false
		a.each(func(n a11yNode) {
			switch role, label := a.role(n), a.name(n); {
			case role == roleComboBox && strings.HasPrefix(label, name):
				field = true
				focused = focused || a.hasState(n, label, stateFocused)
			case role == roleListItem && field:
				focused = focused || a.hasState(n, label, stateFocused)
			}
		})
		if field && focused {
			return
		}
	}
	a.tb.Fatalf("the combobox %q… does not have the keyboard after %s; the buttons: %s", name, timeout, strings.Join(a.names(rolePushButton), ", "))
}

// waitHeaderFolder waits until the header's folder menu shows dir (the name of its button is
// the folder's name).
func (r *desktopRun) waitHeaderFolder(dir string) {
	r.app.tb.Helper()
	base := filepath.Base(dir)
	for deadline := time.Now().Add(30 * time.Second); ; time.Sleep(200 * time.Millisecond) {
		shown := false
		r.app.each(func(n a11yNode) {
			shown = shown || strings.TrimSpace(r.app.name(n)) == base
		})
		if shown {
			return
		}
		if time.Now().After(deadline) {
			r.app.tb.Fatalf("the header does not show the folder %s; the buttons: %s", base, strings.Join(r.app.names(rolePushButton), ", "))
		}
	}
}

// waitComposerFocus waits until the composer has the keyboard focus again.
func (r *desktopRun) waitComposerFocus() {
	r.app.tb.Helper()
	r.app.waitFocus(roleEntry, "Message", 30*time.Second)
}

// sendAndWait types text in the composer, sends it, and waits for the n-th run to be painted
// finished.
func (r *desktopRun) sendAndWait(t *testing.T, text string, n int) {
	t.Helper()
	r.app.typeText(text)
	r.app.key("Return")
	r.waitLogN(t, events.RunFinished, n, true, 60*time.Second)
}

// unsentDraft is typed in a chat and left there, unsent, while another chat is used.
const unsentDraft = "a thought for later"

// Edit and resend by keyboard: ↑ in the empty composer opens the last message sent; the
// edited text is sent, the chat goes on from it, and the old turn stays as version 1 of 2.
func TestDesktopEditAndResendKeepsTheEarlierVersion(t *testing.T) {
	// in the dark theme, so that its screenshots show that theme too
	r := startDesktopRunWith(t, folderModel, store.Settings{Theme: store.ThemeDark}, "Write it")
	r.waitLogN(t, events.RunFinished, 1, true, 60*time.Second)
	wroteIn(t, "the first message", r.workspace, r.workspace)
	r.app.key("Up")
	r.app.waitFocus(roleEntry, "Edit the message", 30*time.Second)
	r.app.key("ctrl+a")
	r.app.typeText("Write it again")
	r.app.screenshot("chats-editing.png")
	r.app.key("Return")
	r.waitLogN(t, events.RunFinished, 2, true, 60*time.Second)
	wroteIn(t, "the edited message", r.workspace, r.workspace)
	settle()
	r.app.screenshot("chats-edited.png")

	_, db := r.finish(t, "chats-edit-end.png")
	chats, _ := db.ListChats()
	if len(chats) != 1 {
		t.Fatalf("chats = %+v, want one", chats)
	}
	msgs, err := db.Messages(chats[0].ID)
	if err != nil || len(msgs) == 0 || msgs[0].Content != "Write it again" {
		t.Fatalf("the chat goes on from %+v, %v; want the edited message first", msgs, err)
	}
	versions, hidden, err := db.Versions(chats[0].ID)
	if err != nil || len(versions) != 1 || versions[0].Index != 2 || versions[0].Count != 2 || len(hidden) == 0 {
		t.Errorf("versions = %+v (hidden %v), %v; want the edit shown as 2 of 2", versions, hidden, err)
	}
}

// From launch to an approved write without the mouse: the model picked with Ctrl+M and typed
// letters, the prompt typed, the call approved with Alt+A; Ctrl+/ shows the shortcuts, Esc
// closes them.
func TestDesktopKeyboardOnlyFromLaunchToAnApprovedWrite(t *testing.T) {
	layoutCanMatter(t)
	r := startDesktopRunWith(t, writerModel, store.Settings{Think: "on", ToolApproval: map[string]string{"write_file": "ask"}}, "")
	r.app.key("ctrl+slash")
	settle()
	r.app.screenshot("chats-help.png")
	r.app.key("Escape")
	r.waitComposerFocus()
	// a menu closed with Esc gives the keys back to the composer: the prompt typed then is kept
	// while the model is picked, and sent
	r.openField("ctrl+m")
	r.app.key("Escape")
	r.waitComposerFocus()
	r.app.typeText(keyboardPrompt)
	r.openAndType("ctrl+m", "e2e-writer", "chats-model-filter.png") // other models hold "writer" too
	r.app.key("Return")
	r.waitComposerFocus()
	r.app.key("Return")
	r.waitLog(t, events.ToolApprovalRequest, true, 60*time.Second)
	settle()
	r.app.screenshot("chats-keyboard-approval.png")
	// the window's title says that a chat waits (the task bar shows it)
	r.app.wantWindowName("1 chat waits for approval")
	r.app.key("alt+a")
	r.waitResumedFinished(t, 60*time.Second)
	r.wantWritten(t, "hello.txt", "hello from Prototyper\n")
	_, db := r.finish(t, "chats-keyboard-end.png")
	rec := toolRecord(t, db)
	if rec.Approval == nil || rec.Approval.Decision != store.DecisionAllow || rec.Approval.By != store.ByUser {
		t.Errorf("approval = %+v, want allowed by the user", rec.Approval)
	}
	if msgs, _ := db.Messages(theOneChat(t, db).ID); len(msgs) == 0 || msgs[0].Content != keyboardPrompt {
		t.Errorf("the prompt sent: %+v, want %q", msgs, keyboardPrompt)
	}
}

// keyboardPrompt is the message of TestDesktopKeyboardOnlyFromLaunchToAnApprovedWrite.
const keyboardPrompt = "Write hello.txt with a greeting"

// A follow-up typed while the answer streams is shown queued until the run takes it; Esc (nothing
// open) stops the run, the answer streamed so far is kept, incomplete, and the follow-up it
// never took goes back to the composer, unsent.
func TestDesktopAFollowUpDuringARunIsShownQueued(t *testing.T) {
	layoutCanMatter(t)
	eachProvider(t, func(t *testing.T, p provider) {
		slow := pacedProxy(t, ollamatest.Get(t).URL(), 1000, 60*time.Millisecond) // 15 s of answer
		r := startDesktopRunWith(t, paragraphModel, store.Settings{Think: "on"}, "Write a long answer", withArgs(p.argsAt(slow)...))
		r.waitLog(t, events.TextDelta, true, 60*time.Second)
		r.app.typeText("Then make it shorter")
		r.app.key("Return")
		time.Sleep(300 * time.Millisecond)
		r.app.screenshot("chats-queued.png")
		stoppedAt := time.Now()
		r.app.key("Escape")
		r.waitLog(t, events.RunFinished, true, 60*time.Second)
		_, db := r.finish(t, "chats-queued-end-"+string(p)+".png")
		run, answer := theEndedAnswer(t, db, events.StopAborted) // the follow-up the run never took is not stored
		t.Logf("Esc stopped the run %s after it was pressed", run.FinishedAt.Sub(stoppedAt).Round(time.Millisecond))
		if full := strings.Join(paragraphPieces(), ""); answer.Content == "" || !strings.HasPrefix(full, answer.Content) || answer.Content == full {
			t.Errorf("stored answer: %d bytes of %d; want what streamed before Esc", len(answer.Content), len(full))
		}
	})
}

// A follow-up shown queued is not lost when the app is killed before the run took it: opened
// again, the window has it back in the chat's box, unsent, as a Stop gives it back.
func TestDesktopAQueuedFollowUpIsBackInTheBoxAfterTheAppWasKilled(t *testing.T) {
	slow := pacedProxy(t, ollamatest.Get(t).URL(), 1000, 60*time.Millisecond) // 15 s of answer
	r := startDesktopRunWith(t, paragraphModel, store.Settings{}, "Write a long answer", withArgs("--ollama", slow))
	r.waitLog(t, events.TextDelta, true, 60*time.Second)
	r.app.typeText("Then make it shorter")
	r.app.key("Return")
	// shown queued, then kill -9: nothing of the app's runs after it
	r.app.waitControl(rolePushButton, "Take back the queued message", 10*time.Second)
	if err := r.app.cmd.Process.Kill(); err != nil {
		t.Fatal(err)
	}
	_ = r.app.waitExit(15 * time.Second)
	r.relaunch(t, paragraphModel, "bridge-queued-killed")
	if said := r.app.waitTexts(func(s string) bool { return s == "Then make it shorter" }, 20*time.Second); len(said) == 0 {
		t.Fatalf("the box does not hold the queued follow-up after the restart (%s)", r.app.screenshot("queued-after-kill.png"))
	}
	_, db := r.finish(t, "queued-after-kill.png")
	if q, _ := db.Queued(); len(q) != 0 {
		t.Errorf("still kept as queued after the restart: %q", q)
	}
}

// The app opened again is where the user left it: in the chat they were in (not the newest),
// with the text typed in its box and not sent, where Enter sends it.
func TestDesktopUnsentTextOutlivesQuitting(t *testing.T) {
	r := startDesktopRunWith(t, folderModel, store.Settings{}, "Say where you are")
	r.waitLogN(t, events.RunFinished, 1, true, 60*time.Second)
	r.app.key("ctrl+n")
	r.waitComposerFocus()
	r.sendAndWait(t, "A new one", 2) // the newest chat
	r.openAndType("ctrl+k", "Say where", "unsent-search.png")
	r.app.key("Return") // back in the first chat
	r.app.waitControl(rolePushButton, "Restore to here, before “Say where you are”", 20*time.Second)
	r.waitComposerFocus()
	r.app.typeText(unsentDraft)
	r.app.key("ctrl+q")
	if err := r.app.waitExit(15 * time.Second); err != nil {
		t.Fatalf("after Ctrl+Q the app ended with %s", describeExit(err))
	}
	r.relaunch(t, folderModel, "bridge-unsent")
	if said := r.app.waitTexts(func(s string) bool { return s == unsentDraft }, 20*time.Second); len(said) == 0 {
		t.Fatalf("the box does not hold the text typed before quitting (%s)", r.app.screenshot("unsent-after-quit.png"))
	}
	r.app.screenshot("unsent-after-quit.png")
	r.app.key("Return")
	r.waitLogN(t, events.RunFinished, 1, true, 60*time.Second)
	_, db := r.finish(t, "unsent-sent.png")
	chats, _ := db.ListChats() // newest first: the one it was sent in, then the other
	if len(chats) != 2 {
		t.Fatalf("chats %+v, want the two", chats)
	}
	var asked []string // the user's messages of the chat the text was typed in
	if msgs, err := db.Messages(chats[0].ID); err == nil {
		for _, m := range msgs {
			if m.Role == store.RoleUser {
				asked = append(asked, m.Content)
			}
		}
	}
	if len(asked) != 2 || asked[0] != "Say where you are" || asked[1] != unsentDraft {
		t.Errorf("the chat's messages %q; want the text kept across the restart sent in the chat it was typed in", asked)
	}
	if drafts, _ := db.Drafts(); len(drafts) != 0 {
		t.Errorf("unsent texts kept after it was sent: %v", drafts)
	}
}

// A new chat left with text in its box is where the app opens again, with that text, though
// other chats exist (the app opened the newest of them, and the text seemed lost).
func TestDesktopANewChatLeftWithUnsentTextIsWhereTheAppOpensAgain(t *testing.T) {
	r := startDesktopRunWith(t, folderModel, store.Settings{}, "Say where you are")
	r.waitLogN(t, events.RunFinished, 1, true, 60*time.Second)
	r.app.key("ctrl+n")
	r.waitComposerFocus()
	r.app.typeText(unsentDraft)
	r.app.key("ctrl+q")
	if err := r.app.waitExit(15 * time.Second); err != nil {
		t.Fatalf("after Ctrl+Q the app ended with %s", describeExit(err))
	}
	r.relaunch(t, folderModel, "bridge-unsent-new-chat")
	if said := r.app.waitTexts(func(s string) bool { return s == unsentDraft }, 20*time.Second); len(said) == 0 {
		t.Fatalf("the box does not hold the text typed in the new chat before quitting (%s)", r.app.screenshot("unsent-new-chat-after-quit.png"))
	}
	if chat := r.app.textsWith("Say where you are"); len(chat) != 0 {
		t.Errorf("the app opened again in the other chat: %q (%s)", chat, r.app.screenshot("unsent-new-chat-after-quit.png"))
	}
	r.finish(t, "unsent-new-chat-after-quit.png")
}

// TestDesktopAnExamplePromptFillsTheMessageBoxAndSendsNothing: an empty chat offers example
// prompts; Enter on one (reached with the keyboard) writes it in the message box, where it
// waits to be changed or sent.
func TestDesktopAnExamplePromptFillsTheMessageBoxAndSendsNothing(t *testing.T) {
	layoutCanMatter(t)
	r := startDesktopRunWith(t, writerModel, store.Settings{}, "")
	const example = "Build a landing page for a small coffee shop"
	r.app.focus(example)
	r.app.waitFocus(rolePushButton, example, 10*time.Second)
	r.app.screenshot("example-prompts.png")
	r.app.key("Return")
	r.app.waitNamedText("Message", 20*time.Second, example)
	r.waitComposerFocus()
	// a message sent leaves the box: what is typed next goes after the example, still there
	r.app.typeText(" with a menu")
	r.app.waitNamedText("Message", 20*time.Second, example+" with a menu")
}

// A chat deleted from the sidebar while its answer streams is gone for good: its run stops
// and ends before the chat goes, so nothing of it is written afterwards and no error is said
// about a chat that is no longer there; the sidebar no longer lists it, and the store keeps no
// chat and no live run.
func TestDesktopDeletingAChatWhileItsAnswerStreamsRemovesItForGood(t *testing.T) {
	slow := pacedProxy(t, ollamatest.Get(t).URL(), 1000, 60*time.Millisecond) // 15 s of answer
	r := startDesktopRunWith(t, paragraphModel, store.Settings{Think: "on"}, "Write a long answer", withArgs("--ollama", slow))
	r.waitLog(t, events.TextDelta, true, 60*time.Second)

	deleteButtons := func() []string {
		var named []string
		for _, quoted := range r.app.names(rolePushButton) {
			if n, err := strconv.Unquote(quoted); err == nil && strings.HasPrefix(n, "Delete ") {
				named = append(named, n)
			}
		}
		return named
	}
	var buttons []string
	for deadline := time.Now().Add(20 * time.Second); len(buttons) == 0 && time.Now().Before(deadline); {
		buttons = deleteButtons()
	}
	if len(buttons) != 1 {
		t.Fatalf("the sidebar's delete buttons are %q, want the one of the running chat; the buttons: %q", buttons, r.app.names(rolePushButton))
	}
	r.app.press(buttons[0])
	r.app.press("Delete") // the confirmation
	r.waitLog(t, events.RunFinished, false, 30*time.Second)
	for deadline := time.Now().Add(20 * time.Second); len(deleteButtons()) > 0; {
		if time.Now().After(deadline) {
			t.Fatalf("the deleted chat is still listed: %q", deleteButtons())
		}
	}
	time.Sleep(time.Second) // what a run writing to the deleted chat would say arrives meanwhile
	for _, l := range readBridgeLog(t, r.bridgeLog) {
		for _, e := range l.Events {
			if e.Type == events.Error {
				t.Errorf("an error was sent to the window after the chat was deleted:\n%s", mustRead(r.bridgeLog))
			}
		}
	}
	_, db := r.finish(t, "delete-running-chat.png")
	if chats, err := db.ListChats(); err != nil || len(chats) != 0 {
		t.Errorf("the store keeps chats %v (%v), want none", chats, err)
	}
	if live, err := db.LiveRuns(); err != nil || len(live) != 0 {
		t.Errorf("the store keeps live runs %v (%v), want none", live, err)
	}
}
