package tests

import (
	"testing"
	"time"

	"prototyper/events"
	"prototyper/internal/ollamatest"
	"prototyper/store"
)

// eventsOf counts the events of type typ in a bridge log.
func eventsOf(lines []bridgeLine, typ events.Type) int {
	n := 0
	for _, l := range lines {
		for _, e := range l.Events {
			if e.Type == typ {
				n++
			}
		}
	}
	return n
}

// TestDesktopEscOnTheDeletePromptOfAChatClosesItAndTheAnswerGoesOn: while an answer streams,
// the delete prompt of another chat opened from its trash button closes with Esc, the keys back
// on that button, and the answer goes on streaming: Esc closes what is open and stops a run only
// when nothing is.
func TestDesktopEscOnTheDeletePromptOfAChatClosesItAndTheAnswerGoesOn(t *testing.T) {
	slow := pacedProxy(t, ollamatest.Get(t).URL(), 1000, 100*time.Millisecond)
	r := startDesktopRunWith(t, paragraphModel, store.Settings{Think: "on"}, "", withArgs("--ollama", slow),
		withSeed(func(db *store.DB, ws string) { seedChats(t, db, ws, 1, 0) }))
	// the window opens the other chat, the newest; the answer is asked in a new one
	r.app.waitTexts(func(s string) bool { return s == oldestChatWords }, 30*time.Second)
	r.newChatFrom(oldestChatWords)
	r.waitComposerFocus()
	r.app.typeText("Write a long answer")
	r.app.key("Return")
	r.waitLog(t, events.ThinkingDelta, true, 60*time.Second)
	r.showChatList()
	const trash = "Delete Chat 00001"
	r.app.focus(trash)
	r.app.waitFocus(rolePushButton, trash, 20*time.Second)
	r.app.key("Return")
	r.app.waitFocus(rolePushButton, "Cancel", 20*time.Second)
	r.app.screenshot("delete-prompt-while-streaming.png")
	r.app.key("Escape")
	r.app.waitNoControl(rolePushButton, "Cancel", 20*time.Second)
	r.app.waitFocus(rolePushButton, trash, 20*time.Second)
	// the answer goes on: more of it arrives and is painted after the Esc
	deltas := eventsOf(readBridgeLog(t, r.bridgeLog), events.TextDelta)
	r.waitLogN(t, events.TextDelta, deltas+3, true, 90*time.Second)
	if len(r.app.textsWith("Stopped.")) != 0 || eventsOf(readBridgeLog(t, r.bridgeLog), events.RunFinished) != 0 {
		t.Fatalf("Esc on the delete prompt stopped the answer (%s)", r.app.screenshot("delete-prompt-esc.png"))
	}
	// with nothing open, Esc stops the run
	r.app.key("Escape")
	r.waitLog(t, events.RunFinished, true, 60*time.Second)
	r.waitStopped(t)
}

// roleHeading and roleDialog are ATSPI_ROLE_HEADING and ATSPI_ROLE_DIALOG.
const (
	roleHeading a11yRole = 83
	roleDialog  a11yRole = 16
)

// TestDesktopTheShortcutsDialogOpensAtItsTop: Ctrl+/ opens the list of shortcuts with its title
// and first shortcut in view and the keys in it: Tab reaches Close, Esc closes it.
func TestDesktopTheShortcutsDialogOpensAtItsTop(t *testing.T) {
	layoutCanMatter(t)
	r := startDesktopRunWith(t, writerModel, store.Settings{}, "")
	r.app.key("ctrl+slash")
	dialog := r.app.waitNode(roleDialog, "Keyboard shortcuts")
	settle() // where it opened scrolled to, it is by now
	shot := r.app.screenshot("shortcuts-dialog.png")
	_, dy, _, dh := r.app.extents(dialog)
	_, hy, _, _ := r.app.extents(r.app.waitNode(roleHeading, "Keyboard shortcuts"))
	_, fy, _, fh := r.app.extents(r.app.lastTextWith(newChatDoes))
	if hy < dy || fy < dy || fy+fh > dy+dh {
		t.Errorf("the dialog (y=%d..%d) opened scrolled: its title at y=%d, its first shortcut at y=%d..%d (%s)", dy, dy+dh, hy, fy, fy+fh, shot)
	}
	r.app.waitFocus(roleHeading, "Keyboard shortcuts", 20*time.Second)
	r.app.key("Tab")
	r.app.waitFocus(rolePushButton, "Close", 20*time.Second)
	r.app.key("Escape")
	r.app.waitNoControl(roleDialog, "Keyboard shortcuts", 20*time.Second)
	r.waitComposerFocus()
}

// newChatDoes is what the first shortcut listed does (shortcuts.ts: newChatShortcut).
const newChatDoes = "New chat"
