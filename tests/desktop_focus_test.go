package tests

import (
	"strings"
	"testing"
	"time"

	"prototyper/events"
	"prototyper/store"
)

// TestDesktopTabGoesRoundTheSettingsAndEscClosesThemFromAnywhere: Tab past the last button of
// the settings (Save) comes back to their first field rather than to the header behind the
// backdrop, Shift+Tab goes the other way round, and Esc then still closes them, with the keys
// back in the message box.
func TestDesktopTabGoesRoundTheSettingsAndEscClosesThemFromAnywhere(t *testing.T) {
	layoutCanMatter(t)
	r := startDesktopRunWith(t, writerModel, store.Settings{Think: "on"}, "")
	r.app.key("ctrl+comma")
	r.app.waitFocus(roleComboBox, "Model server", 30*time.Second)
	r.app.focus("Save")
	r.app.waitFocus(rolePushButton, "Save", 10*time.Second)
	r.app.key("Tab")
	r.app.waitFocus(roleComboBox, "Model server", 10*time.Second)
	r.app.key("shift+Tab")
	r.app.waitFocus(rolePushButton, "Save", 10*time.Second)
	r.app.key("Tab", "Tab", "Tab")
	r.app.screenshot("settings-tab-round.png")
	r.app.key("Escape")
	r.app.waitNoControl(rolePushButton, "Save", 20*time.Second)
	r.app.typeText("after the settings")
	r.app.waitNamedText("Message", 20*time.Second, "after the settings")
}

// TestDesktopSendingFromAScrolledUpChatBringsTheRunIntoView: with the chat scrolled up to its
// first message (as a screen reader's user or a search does), the message the user sends and
// the answer to it are not below the fold: the view follows the run to its end.
func TestDesktopSendingFromAScrolledUpChatBringsTheRunIntoView(t *testing.T) {
	layoutCanMatter(t)
	r := startDesktopRunWith(t, chattyModel, store.Settings{}, "The first question")
	r.waitLogN(t, events.RunFinished, 1, true, 60*time.Second)
	r.sendAndWait(t, "The second question", 2)
	r.app.scrollTo(r.app.lastTextWith("The first question"))
	_, boxY, _, _ := r.app.extents(r.app.waitNode(roleEntry, "Message"))
	if _, y, _, h := r.app.extents(r.app.lastTextWith("part249")); y+h <= boxY {
		t.Fatalf("the chat did not scroll up to its first message (%s)", r.app.screenshot("scrolled-up.png"))
	}
	r.sendAndWait(t, "The third question", 3)
	shot := r.app.screenshot("sent-from-scrolled-up.png")
	// the view followed the run to its end: the answer's end is in view, the message sent above
	// it (out of view only when the answer is taller than the window), nothing below the fold
	_, sentY, _, _ := r.app.extents(r.app.lastTextWith("The third question"))
	_, endY, _, endH := r.app.extents(r.app.lastTextWith("part249"))
	if end := endY + endH; end <= 0 || end > boxY || sentY >= boxY {
		t.Errorf("the message sent (at y=%d) and its answer (its end at y=%d..%d) are below the fold (the message box at y=%d) (%s)", sentY, endY, endY+endH, boxY, shot)
	}
}

// lastTextWith is the last object of the window, in the page's order, whose text holds part.
func (a *desktopApp) lastTextWith(part string) a11yNode {
	a.tb.Helper()
	var last a11yNode
	a.each(func(n a11yNode) {
		if strings.Contains(a.text(n), part) {
			last = n
		}
	})
	if last.Path == "" {
		a.tb.Fatalf("the window shows no text holding %q", part)
	}
	return last
}

// scrollTo scrolls n to the top of its view, as a screen reader does (Component.ScrollTo).
func (a *desktopApp) scrollTo(n a11yNode) {
	a.tb.Helper()
	var ok bool
	if err := a.a11yBus().Object(n.Dest, n.Path).Call(atspiComponent+".ScrollTo", 0, uint32(0)).Store(&ok); err != nil {
		a.tb.Fatalf("scroll to %s: %v", n.Path, err)
	}
	settle()
}

// waitNode is the one object of role named name.
func (a *desktopApp) waitNode(role a11yRole, name string) a11yNode {
	a.tb.Helper()
	return a.waitControl(role, name, 20*time.Second).node
}

// extents is where n is drawn, in the window's coordinates.
func (a *desktopApp) extents(n a11yNode) (x, y, w, h int32) {
	a.tb.Helper()
	var box struct{ X, Y, W, H int32 }
	if err := a.a11yBus().Object(n.Dest, n.Path).Call(atspiComponent+".GetExtents", 0, uint32(1)).Store(&box); err != nil {
		a.tb.Fatalf("the extents of %s: %v", n.Path, err)
	}
	return box.X, box.Y, box.W, box.H
}

// TestDesktopALineOfATabAfterATableAddsNoRow: an answer whose table is followed by a line of
// only a tab shows the table with its one row, not an empty one and the sentence after it.
func TestDesktopALineOfATabAfterATableAddsNoRow(t *testing.T) {
	layoutCanMatter(t)
	r := startDesktopRunWith(t, tableModel, store.Settings{}, "List the files")
	r.waitLogN(t, events.RunFinished, 1, true, 60*time.Second)
	shot := r.app.screenshot("table-then-tab.png")
	var rows []int32
	r.app.each(func(n a11yNode) {
		if r.app.role(n) == roleTable {
			v, err := r.app.a11yBus().Object(n.Dest, n.Path).GetProperty(atspiTable + ".NRows")
			if err != nil {
				t.Fatalf("the table's rows: %v", err)
			}
			rows = append(rows, v.Value().(int32))
		}
	})
	if len(rows) != 1 || rows[0] != 2 {
		t.Errorf("the answer's tables have %v rows; want one table of 2 (its head and index.html) (%s)", rows, shot)
	}
}

// ATSPI_ROLE_TABLE, and the interface of a table's rows and columns.
const (
	roleTable  a11yRole = 55
	atspiTable          = "org.a11y.atspi.Table"
)

// TestDesktopTheContextGaugeIsInLineWithTheMessageBox: the gauge of the context used starts
// where the message box starts, and the end of the chat above it is shown whole.
func TestDesktopTheContextGaugeIsInLineWithTheMessageBox(t *testing.T) {
	layoutCanMatter(t)
	r := startDesktopRunWith(t, chattyModel, store.Settings{}, "A question")
	r.waitLogN(t, events.RunFinished, 1, true, 60*time.Second)
	settle()
	shot := r.app.screenshot("context-gauge.png")
	var gauge a11yNode
	for deadline := time.Now().Add(20 * time.Second); gauge.Path == "" && time.Now().Before(deadline); time.Sleep(200 * time.Millisecond) {
		r.app.each(func(n a11yNode) {
			if r.app.name(n) == "Context used" {
				gauge = n
			}
		})
	}
	if gauge.Path == "" {
		t.Fatalf("the window shows no gauge named \"Context used\" (%s)", shot)
	}
	gx, gy, _, _ := r.app.extents(gauge)
	bx, _, _, _ := r.app.extents(r.app.waitNode(roleEntry, "Message"))
	if d := gx - bx; d < -1 || d > 1 {
		t.Errorf("the gauge starts at x=%d, the message box at x=%d: not in line (%s)", gx, bx, shot)
	}
	if _, y, _, h := r.app.extents(r.app.lastTextWith("part249")); y+h > gy {
		t.Errorf("the answer's end (down to y=%d) runs under the gauge (at y=%d) (%s)", y+h, gy, shot)
	}
}

// TestDesktopTheUndoNoteGoesWhenTheChatRunsAgain: what an undo did is said until the chat's
// next run; after it, the chat no longer says it.
func TestDesktopTheUndoNoteGoesWhenTheChatRunsAgain(t *testing.T) {
	r := twoRuns(t)
	r.app.key("alt+z")
	r.waitLog(t, events.Undo, true, 30*time.Second)
	const note = "Undone: b.txt removed."
	if !r.app.says(note) {
		t.Fatalf("the window does not say %q after the undo", note)
	}
	r.sendAndWait(t, "Change a.txt again", 3)
	settle()
	if said := r.app.textsWith(note); len(said) != 0 {
		t.Errorf("after the next run the chat still says %q (%s)", said, r.app.screenshot("undo-note-after-a-run.png"))
	}
}

// TestDesktopLettersTypedOnAButtonGoToTheMessageBox: with the focus on a button of the chat, a
// letter typed is written in the message box rather than lost, and Ctrl+L puts the cursor
// there from anywhere.
func TestDesktopLettersTypedOnAButtonGoToTheMessageBox(t *testing.T) {
	layoutCanMatter(t)
	r := startDesktopRunWith(t, writerModel, store.Settings{Think: "on"}, "Write hello.txt with a greeting")
	r.waitFinished(t, 60*time.Second)
	const undo = "Undo the run that changed hello.txt"
	r.app.focus(undo)
	r.app.waitFocus(rolePushButton, undo, 10*time.Second)
	r.app.typeText("more")
	r.app.waitNamedText("Message", 20*time.Second, "more")
	r.app.focus(undo)
	r.app.waitFocus(rolePushButton, undo, 10*time.Second)
	r.app.key("ctrl+l")
	r.waitComposerFocus()
	r.app.screenshot("typed-on-a-button.png")
}

// TestDesktopNoKeystrokeIsLostAfterTheChangesReviewARevertOrARename: after the Changes review
// is closed (Esc), the focus is back in the message box it was opened from; after a file is
// reverted there, the focus stays in the review; after a chat is renamed (Enter), it is in the
// message box, and the window still answers: each time, what is typed next is written there.
func TestDesktopNoKeystrokeIsLostAfterTheChangesReviewARevertOrARename(t *testing.T) {
	layoutCanMatter(t)
	r := twoRuns(t)
	r.app.key("ctrl+l")
	r.waitComposerFocus()
	r.app.key("alt+c")
	r.app.waitControl(rolePushButton, "Revert a.txt to before this chat", 20*time.Second)
	r.app.key("Escape")
	r.app.waitNoControl(rolePushButton, "Revert a.txt to before this chat", 20*time.Second)
	r.waitComposerFocus()
	r.app.typeText("one")
	r.app.waitNamedText("Message", 20*time.Second, "one")

	r.app.key("alt+c")
	const revert = "Revert a.txt to before this chat"
	r.app.focus(revert)
	r.app.waitFocus(rolePushButton, revert, 10*time.Second)
	r.app.key("Return")
	r.waitLog(t, events.Undo, true, 30*time.Second)
	r.app.waitNoControl(rolePushButton, revert, 20*time.Second)
	r.app.waitControl(rolePushButton, "Revert b.txt to before this chat", 20*time.Second)
	r.app.typeText("two")
	r.app.waitNamedText("Message", 20*time.Second, "onetwo")
	r.app.key("Escape")

	r.showChatList()
	rename := r.app.waitControl(rolePushButton, "Rename Change a.txt", 20*time.Second)
	r.app.activate(rename)
	r.app.waitFocus(roleEntry, "Chat title", 20*time.Second)
	r.app.key("ctrl+a")
	r.app.typeText("Renamed")
	r.app.key("Return")
	r.app.typeText("three")
	r.app.waitNamedText("Message", 20*time.Second, "onetwothree")
	r.app.waitControl(rolePushButton, "Rename Renamed", 20*time.Second)
	r.app.screenshot("no-keystroke-lost.png")
}

// TestDesktopOnAFoldALetterWritesInTheMessageBoxAndSpaceToggles: with the focus on the fold of a
// card's diff, Space and Enter open and close it as any button's press does, and a letter is
// written in the message box rather than toggling it.
func TestDesktopOnAFoldALetterWritesInTheMessageBoxAndSpaceToggles(t *testing.T) {
	layoutCanMatter(t)
	r := twoRuns(t)
	fold := r.app.waitNodeNamed("Diff", 20*time.Second)
	r.app.grabFocus(fold)
	if r.app.expanded(fold) {
		t.Fatalf("the diff of a done card is open before it was asked for")
	}
	r.app.key("space")
	r.app.waitExpanded(fold, true)
	r.app.typeText("x")
	r.app.waitNamedText("Message", 20*time.Second, "x")
	if !r.app.expanded(fold) {
		t.Errorf("a letter typed on the fold closed it (%s)", r.app.screenshot("fold-letter.png"))
	}
	r.app.grabFocus(fold)
	r.app.key("Return")
	r.app.waitExpanded(fold, false)
}

// TestDesktopOnTheModelButtonALetterWritesAndArrowDownOpensTheMenu: with the focus on the
// header's model button, a letter is written in the message box and the menu stays closed;
// ↓ opens the menu, as Enter and Space do.
func TestDesktopOnTheModelButtonALetterWritesAndArrowDownOpensTheMenu(t *testing.T) {
	layoutCanMatter(t)
	r := startDesktopRunWith(t, writerModel, store.Settings{Think: "on"}, "")
	button := r.app.waitNodeNamed(writerModel.Name, 30*time.Second)
	r.app.grabFocus(button)
	r.app.typeText("hi")
	r.app.waitNamedText("Message", 20*time.Second, "hi")
	if len(r.app.controls(roleComboBox, "Filter the models")) != 0 {
		t.Errorf("a letter typed on the model button opened its menu (%s)", r.app.screenshot("model-button-letter.png"))
	}
	r.app.grabFocus(button)
	r.app.key("Down")
	r.app.typeText("e2e-w")
	r.app.waitNamedText("Filter the models", 20*time.Second, "e2e-w")
	r.app.key("Escape")
}

// waitNodeNamed is the first object of the window, in the page's order, whose accessible name
// begins with prefix.
func (a *desktopApp) waitNodeNamed(prefix string, timeout time.Duration) a11yNode {
	a.tb.Helper()
	for deadline := time.Now().Add(timeout); time.Now().Before(deadline); time.Sleep(200 * time.Millisecond) {
		var found a11yNode
		a.each(func(n a11yNode) {
			if found.Path == "" && strings.HasPrefix(a.name(n), prefix) {
				found = n
			}
		})
		if found.Path != "" {
			return found
		}
	}
	a.tb.Fatalf("the window has no object named %q… after %s; its buttons: %s", prefix, timeout, strings.Join(a.names(rolePushButton), ", "))
	return a11yNode{}
}

// grabFocus gives n the keyboard focus, as a screen reader does, and waits until it has it.
func (a *desktopApp) grabFocus(n a11yNode) {
	a.tb.Helper()
	var ok bool
	if err := a.a11yBus().Object(n.Dest, n.Path).Call(atspiComponent+".GrabFocus", 0).Store(&ok); err != nil || !ok {
		a.tb.Fatalf("focus %s: %v (done: %v)", a.name(n), err, ok)
	}
	if !a.waitState(n, a.name(n), stateFocused, true, 10*time.Second) {
		a.tb.Fatalf("%q did not take the focus", a.name(n))
	}
}

// stateExpanded is the AtspiStateType bit of an open fold, menu or list.
const stateExpanded = 10

// expanded reports whether n (a fold, a menu button) is open.
func (a *desktopApp) expanded(n a11yNode) bool {
	a.tb.Helper()
	return a.hasState(n, a.name(n), stateExpanded)
}

// waitExpanded waits until n is open (want) or closed.
func (a *desktopApp) waitExpanded(n a11yNode, want bool) {
	a.tb.Helper()
	if !a.waitState(n, a.name(n), stateExpanded, want, 10*time.Second) {
		a.tb.Fatalf("%q is not %s after 10s (%s)", a.name(n), map[bool]string{true: "open", false: "closed"}[want], a.screenshot("fold-state.png"))
	}
}

// TestDesktopTheEndOfTheChatStaysInViewWhenTheMessageBoxGrows: an image pasted in the box makes
// it taller; the chat, which was at its end, stays there: the last answer and the row of its
// actions are above the box, not under it; and so they are when the chat is opened again with
// the image in its box, from the list of chats or as the window starts.
func TestDesktopTheEndOfTheChatStaysInViewWhenTheMessageBoxGrows(t *testing.T) {
	layoutCanMatter(t)
	r := startDesktopRunWith(t, longChattyModel, store.Settings{}, "A question") // an answer taller than the window
	r.waitLogN(t, events.RunFinished, 1, true, 60*time.Second)
	r.pasteImage(t, screenshotPNG(t))
	endAboveTheBox := func(shotName string) {
		t.Helper()
		var top, end int32
		for deadline := time.Now().Add(20 * time.Second); time.Now().Before(deadline); time.Sleep(200 * time.Millisecond) {
			_, top, _, _ = r.app.extents(r.app.waitNode(roleImage, "Image 1 to send"))
			_, y, _, h := r.app.extents(r.app.waitNode(rolePushButton, "Regenerate"))
			if end = y + h; end <= top {
				return
			}
		}
		t.Fatalf("the end of the chat (its last answer's actions, down to y=%d) is under the message box, its image at y=%d (%s)", end, top, r.app.screenshot(shotName))
	}
	endAboveTheBox("box-grew-over-the-answer.png")
	r.app.screenshot("box-grew.png")
	r.app.key("ctrl+n")
	r.app.waitNoControl(roleImage, "Image 1 to send", 20*time.Second)
	r.showChatList()
	r.app.focusNamed(rolePushButton, "A question")
	r.app.key("Return")
	r.app.waitControl(roleImage, "Image 1 to send", 20*time.Second)
	endAboveTheBox("reopened-box-over-the-answer.png")
	r.app.screenshot("reopened-with-an-image.png")
	r.reopen(t, longChattyModel, "bridge-restarted-with-an-image")
	r.app.waitControl(roleImage, "Image 1 to send", 20*time.Second)
	endAboveTheBox("restarted-box-over-the-answer.png")
	r.app.screenshot("restarted-with-an-image.png")
}
