package tests

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"prototyper/events"
	"prototyper/store"
)

// showChatList shows the list of chats when the window started with it hidden (a narrow
// window does, until the user chooses): Ctrl+B, its button's shortcut.
func (r *desktopRun) showChatList() {
	r.app.tb.Helper()
	if len(r.app.controls(rolePushButton, "+ New chat")) == 0 {
		r.app.key("ctrl+b")
		r.app.waitControl(rolePushButton, "+ New chat", 20*time.Second)
	}
}

// TestDesktopAcceptAllClosesTheReviewAndRevertAllPutsEveryFileBack: in Changes, Accept all
// keeps the files and closes the review, the keys back in the message box; Revert all puts
// every file the chat changed back as it was before it, refusing a file the user changed
// since until they choose Keep mine, which keeps their version beside it.
func TestDesktopAcceptAllClosesTheReviewAndRevertAllPutsEveryFileBack(t *testing.T) {
	layoutCanMatter(t)
	r := twoRuns(t)
	r.app.key("alt+c")
	r.app.waitControl(rolePushButton, "Revert all", 20*time.Second)
	r.app.screenshot("changes-accept-revert-all.png")
	r.app.press("Accept all")
	r.app.waitNoControl(rolePushButton, "Revert all", 20*time.Second)
	r.waitComposerFocus()
	r.wantFile(t, "a.txt", "first\n", 0o600)
	r.wantFile(t, "b.txt", "new\n", 0o644)

	r.writeFile(t, "b.txt", "mine\n", 0o644) // the user edits one of them since
	r.app.key("alt+c")
	r.app.press("Revert all")
	r.app.waitControl(rolePushButton, "Keep mine beside it", 20*time.Second)
	r.wantFile(t, "a.txt", "first\n", 0o600) // refused: nothing changed
	r.app.press("Keep mine beside it")
	r.waitLog(t, events.Undo, true, 30*time.Second)
	r.wantFile(t, "a.txt", "original\n", 0o600)
	r.wantFile(t, "b.txt", "", 0)
	r.wantFile(t, "b.txt.mine", "mine\n", 0o644)
	// what is left to review is the user's version kept beside the restored one
	r.app.waitControl(rolePushButton, "Revert b.txt.mine to before this chat", 20*time.Second)
	for _, f := range []string{"a.txt", "b.txt"} {
		if len(r.app.controls(rolePushButton, "Revert "+f+" to before this chat")) != 0 {
			t.Errorf("the review still lists %s after Revert all (%s)", f, r.app.screenshot("changes-reverted-all.png"))
		}
	}
}

// TestDesktopTheListOfChatsHidesWithCtrlBAndStaysSoAfterARestart: a narrow window starts
// with the list of chats hidden, a wide one with it shown; Ctrl+B (or the header's button)
// shows or hides it, and the choice is kept when the app starts again.
func TestDesktopTheListOfChatsHidesWithCtrlBAndStaysSoAfterARestart(t *testing.T) {
	layoutCanMatter(t)
	r := startDesktopRunWith(t, writerModel, store.Settings{}, "")
	shown := func() bool { return len(r.app.controls(rolePushButton, "+ New chat")) == 1 }
	narrow := desktopLayout().name == "large" // 900 px at 1.5 times: 600 px of page
	if shown() == narrow {
		t.Fatalf("the list of chats is shown: %v in the %s layout (%s)", shown(), desktopLayout().name, r.app.screenshot("sidebar-at-start.png"))
	}
	was := shown()
	r.app.key("ctrl+b")
	if was {
		r.app.waitNoControl(rolePushButton, "+ New chat", 20*time.Second)
	} else {
		r.app.waitControl(rolePushButton, "+ New chat", 20*time.Second)
	}
	r.app.screenshot("sidebar-toggled.png")
	r.reopen(t, writerModel, "bridge-sidebar")
	settle()
	if shown() == was {
		t.Errorf("after a restart the list of chats is shown: %v, want it as chosen, %v (%s)", shown(), !was, r.app.screenshot("sidebar-restarted.png"))
	}
	r.app.press("List of chats") // the header's button does the same
	if was {
		r.app.waitControl(rolePushButton, "+ New chat", 20*time.Second)
	} else {
		r.app.waitNoControl(rolePushButton, "+ New chat", 20*time.Second)
	}
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

// TestDesktopTheFolderMenuListsTheStartFolderAndSaysWhenOneIsGone: the folder the app was
// started with stays in the folder menu after another was picked and the app started again
// elsewhere; one deleted since is listed as not found rather than offered silently.
func TestDesktopTheFolderMenuListsTheStartFolderAndSaysWhenOneIsGone(t *testing.T) {
	layoutCanMatter(t)
	r := startDesktopRunWith(t, writerModel, store.Settings{}, "")
	other := filepath.Join(t.TempDir(), "other-project")
	gone := filepath.Join(t.TempDir(), "gone-project")
	for _, d := range []string{other, gone} {
		if err := os.Mkdir(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	r.typeFolder(gone)
	r.waitHeaderFolder(gone)
	r.typeFolder(other)
	r.waitHeaderFolder(other)
	if err := os.Remove(gone); err != nil {
		t.Fatal(err)
	}
	start := r.workspace
	if err := r.app.closeWindow(15 * time.Second); err != nil {
		t.Fatalf("the app did not exit cleanly: %s", describeExit(err))
	}
	r.workspace = other // started elsewhere now
	r.relaunch(t, writerModel, "bridge-recent")
	r.openField("ctrl+o")
	if len(r.app.waitTexts(func(s string) bool { return strings.Contains(s, start) }, 20*time.Second)) == 0 {
		t.Errorf("the folder menu does not list %s, the folder the app was first started with (%s)", start, r.app.screenshot("recent-folders.png"))
	}
	if said := r.app.textsWith("Not found: moved or deleted"); len(said) != 1 {
		t.Errorf("the folder menu says %q of the folder deleted since, want it said once (%s)", said, r.app.screenshot("recent-folders.png"))
	}
	r.app.screenshot("recent-folders.png")
	r.app.key("Escape")
}
