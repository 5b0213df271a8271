package tests

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"prototyper/events"
	"prototyper/internal/ollamatest"
	"prototyper/store"
)

// twoRunsModel changes a.txt in the chat's first run and creates b.txt in its second; asked a
// third time, it changes a.txt again.
var twoRunsModel = ollamatest.Model{Name: "e2e-two-runs", Scripts: ollamatest.Scripts{
	"SU":           ollamatest.ToolCall("write_file", map[string]any{"path": "a.txt", "content": "first\n"}),
	"SUAT":         []string{"Changed a.txt."},
	"SUATAU":       ollamatest.ToolCall("write_file", map[string]any{"path": "b.txt", "content": "new\n"}),
	"SUATAUAT":     []string{"Created b.txt."},
	"SUATAUATAU":   ollamatest.ToolCall("write_file", map[string]any{"path": "a.txt", "content": "third\n"}),
	"SUATAUATAUAT": []string{"Changed a.txt again."},
}}

// failedEditModel edits a.txt with a text that is not in it (the edit fails, the file stays
// as it was), then says so.
var failedEditModel = ollamatest.Model{Name: "e2e-failed-edit", Scripts: ollamatest.Scripts{
	"SU":   ollamatest.ToolCall("edit_file", map[string]any{"path": "a.txt", "old_string": "not in the file", "new_string": "x"}),
	"SUAT": []string{"The text was not there."},
}}

// twoRuns opens the window on a workspace holding a.txt and sends the two messages of
// twoRunsModel, each run painted to its end.
func twoRuns(t *testing.T) *desktopRun {
	t.Helper()
	return twoRunsUnder(t, store.Settings{Think: "off"})
}

// twoRunsUnder is twoRuns with the given settings.
func twoRunsUnder(t *testing.T, settings store.Settings) *desktopRun {
	t.Helper()
	r := startDesktopRunWith(t, twoRunsModel, settings, "")
	r.writeFile(t, "a.txt", "original\n", 0o600)
	r.sendAndWait(t, "Change a.txt", 1)
	r.sendAndWait(t, "Now create b.txt", 2)
	time.Sleep(500 * time.Millisecond) // the run's Undo appears with the last paint
	return r
}

// Alt+Z undoes the chat's newest run that changed files, the one whose Undo shows the key;
// Alt+Y takes the undo back.
func TestDesktopUndoARunWithItsShortcutAndRedoIt(t *testing.T) {
	r := twoRuns(t)
	r.wantFile(t, "b.txt", "new\n", 0o644)
	r.app.screenshot("undo-before.png")

	r.app.key("alt+z")
	r.waitLog(t, events.Undo, true, 30*time.Second)
	r.wantFile(t, "b.txt", "", 0)
	r.wantFile(t, "a.txt", "first\n", 0o600)
	r.app.screenshot("undo-after.png")

	r.app.key("alt+y")
	r.waitLog(t, events.Redo, true, 30*time.Second)
	r.wantFile(t, "b.txt", "new\n", 0o644)
	_, db := r.finish(t, "undo-redone.png")
	chats, _ := db.ListChats()
	changes, _ := db.Changes(chats[0].ID)
	if len(changes) != 4 || changes[2].Kind != store.ChangeUndo || changes[3].Kind != store.ChangeRedo {
		t.Errorf("changes %+v, want the two runs, the undo and the redo", changes)
	}
}

// What an undo put back is said under the chat it was done in, not under another one that
// changed a file of the same name; opened again, that chat says it still.
func TestDesktopTheUndoNoteStaysWithItsChat(t *testing.T) {
	r := twoRuns(t)
	r.app.key("alt+z")
	r.waitLog(t, events.Undo, true, 30*time.Second)
	const note = "Undone: b.txt removed." // run 2 created it
	if !r.app.says(note) {
		t.Fatalf("the window does not say %q after the undo", note)
	}
	r.writeFile(t, "a.txt", "edited by hand\n", 0o600) // so that the next run changes it
	r.app.key("ctrl+n")
	settle()
	r.sendAndWait(t, "Change a.txt", 3) // a new chat: its run changes a.txt
	r.app.waitControl(rolePushButton, "Undo the run that changed a.txt", 20*time.Second)
	if said := r.app.textsWith(note); len(said) != 0 {
		t.Errorf("the new chat says %q, the undo of another chat (%s)", said, r.app.screenshot("undo-note-other-chat.png"))
	}
	r.openAndType("ctrl+k", "Now create", "undo-note-search.png")
	r.app.key("Return")
	if !r.app.says(note) {
		t.Errorf("the chat of the undo no longer says %q", note)
	}
	r.finish(t, "undo-note-own-chat.png")
}

// Alt+Z after the checkpoint cap was lowered below the file the newest run wrote still puts it
// back: an undo judges a file by what its run recorded, not by today's cap.
func TestDesktopUndoAfterTheCapWasLoweredBelowTheRunsFile(t *testing.T) {
	r := twoRuns(t)
	_, db := r.finish(t, "undo-cap-before.png")
	if _, err := db.UpdateSettings(func(s *store.Settings) error { s.CheckpointMaxBytes = 3; return nil }); err != nil {
		t.Fatal(err)
	}
	db.Close() // b.txt, 4 bytes, was written under the default cap
	r.relaunch(t, twoRunsModel, "bridge-undo-cap")
	r.app.waitControl(rolePushButton, "Undo the run that changed b.txt", 20*time.Second) // the chat is open

	r.app.key("alt+z")
	r.waitLog(t, events.Undo, true, 30*time.Second)
	r.wantFile(t, "b.txt", "", 0)
	r.wantFile(t, "a.txt", "first\n", 0o600)
	r.finish(t, "undo-cap-lowered.png")
}

// A file the user changed after the run wrote it stops Alt+Z with a choice. A version larger
// than the app keeps of a file cannot be kept beside the restored one: the window says so and
// the choice stays open, and Overwrite mine takes the run back. A smaller one is kept beside.
func TestDesktopAnUndoOfAFileChangedSinceKeepsTheUsersVersionOrSaysWhyItCannot(t *testing.T) {
	r := twoRunsUnder(t, store.Settings{Think: "off", CheckpointMaxBytes: 16})
	big := "my own version, longer than the 16 bytes the app keeps of a file\n"
	r.writeFile(t, "b.txt", big, 0o644)
	r.app.key("alt+z")
	r.app.press("Keep mine beside it")
	if !r.app.says("cannot be kept beside the restored one") {
		t.Fatalf("the window does not say why the version cannot be kept: %s", r.app.screenshot("undo-keep-too-large.png"))
	}
	r.app.screenshot("undo-keep-too-large.png")
	r.wantFile(t, "b.txt", big, 0o644) // nothing was changed, nothing copied
	r.wantFile(t, "b.txt.mine", "", 0)
	r.app.press("Overwrite mine")
	if !r.app.says("Undone: b.txt removed.") {
		t.Error("the window does not say that b.txt was removed")
	}
	r.wantFile(t, "b.txt", "", 0)

	// the first run's a.txt, changed by the user too, is kept beside the one put back, and
	// the window says where
	r.writeFile(t, "a.txt", "mine\n", 0o600)
	r.app.key("alt+z")
	r.app.press("Keep mine beside it")
	if !r.app.says("Your version is kept in a.txt.mine.") {
		t.Error("the window does not say where the user's version is kept")
	}
	r.wantFile(t, "a.txt", "original\n", 0o600)
	r.wantFile(t, "a.txt.mine", "mine\n", 0o600)
	r.finish(t, "undo-kept-mine.png")
}

// A run whose only call failed without changing its file offers no Undo, the window does not
// say it changed the file, and Alt+Z does not take it back: there is nothing to undo.
func TestDesktopARunWhoseEditFailedChangedNothing(t *testing.T) {
	r := startDesktopRunWith(t, failedEditModel, store.Settings{Think: "off"}, "")
	r.writeFile(t, "a.txt", "original\n", 0o600)
	r.sendAndWait(t, "Change a.txt", 1)
	if !r.app.says("The text was not there.") {
		t.Fatal("the run's answer is not shown")
	}
	r.app.screenshot("failed-edit.png")
	if said := r.app.textsWith("This run "); len(said) != 0 {
		t.Errorf("the window says %q of a run that changed nothing", said)
	}
	if undo := r.app.controls(rolePushButton, "Undo"); len(undo) != 0 {
		t.Errorf("%d Undo buttons for a run that changed nothing", len(undo))
	}
	// Alt+Z finds no run that changed a file, and says so rather than "undone"
	r.app.key("alt+z")
	if !r.app.says("Nothing to undo") || len(r.app.textsWith("Undone")) != 0 {
		t.Errorf("Alt+Z after a run that changed nothing does not say there is nothing to undo (%s)", r.app.screenshot("failed-edit-undo.png"))
	}
	r.wantFile(t, "a.txt", "original\n", 0o600)
	r.finish(t, "failed-edit-end.png")
}

// createEditDeleteModel creates a.txt, edits b.txt and deletes old.txt, in one run.
var createEditDeleteModel = ollamatest.Model{Name: "e2e-create-edit-delete", Scripts: ollamatest.Scripts{
	"SU":       ollamatest.ToolCall("write_file", map[string]any{"path": "a.txt", "content": "new\n"}),
	"SUAT":     ollamatest.ToolCall("write_file", map[string]any{"path": "b.txt", "content": "edited\n"}),
	"SUATAT":   ollamatest.ToolCall("delete_path", map[string]any{"path": "old.txt"}),
	"SUATATAT": []string{"Tidied up."},
}}

// The line under a run says what it did to each file as a person says it, in the same words
// as the run ends and once the window is opened again on the chat.
func TestDesktopTheRunLineSaysWhatItCreatedEditedAndDeleted(t *testing.T) {
	r := startDesktopRunWith(t, createEditDeleteModel, store.Settings{Think: "off", ToolApproval: map[string]string{"delete_path": "auto"}}, "")
	r.writeFile(t, "b.txt", "was\n", 0o644)
	r.writeFile(t, "old.txt", "old\n", 0o644)
	r.sendAndWait(t, "Tidy up", 1)
	r.wantFile(t, "a.txt", "new\n", 0o644)
	r.wantFile(t, "old.txt", "", 0)
	const said = "This run created a.txt, edited b.txt and deleted old.txt"
	saysIt := func(s string) bool { return strings.Contains(s, said) }
	if len(r.app.waitTexts(saysIt, 20*time.Second)) == 0 {
		t.Errorf("the run's line says %q, want %q (%s)", r.app.textsWith("This run"), said, r.app.screenshot("run-line-live.png"))
	}
	if wrong := r.app.textsWith("This run changed"); len(wrong) != 0 {
		t.Errorf("the window says %q", wrong)
	}
	r.reopen(t, createEditDeleteModel, "run-line-reopened")
	if len(r.app.waitTexts(saysIt, 20*time.Second)) == 0 {
		t.Errorf("reopened, the run's line says %q, want %q (%s)", r.app.textsWith("This run"), said, r.app.screenshot("run-line-reopened.png"))
	}
	r.finish(t, "run-line-reopened.png")
}

// "Restore to here" on the first message undoes both runs at once: a.txt as the user left it
// (mode included), b.txt gone. The button is found by its accessible name, which names its
// message, and pressed as a screen reader's user presses it.
func TestDesktopRestoreToTheFirstMessageTakesBackEveryLaterRun(t *testing.T) {
	r := twoRuns(t)
	r.app.focus("Restore to here, before “Change a.txt”")
	time.Sleep(300 * time.Millisecond) // the focus ring is painted
	r.app.screenshot("restore-focused.png")
	r.app.press("Restore to here, before “Change a.txt”")
	lines := r.waitLog(t, events.Undo, true, 30*time.Second)
	r.wantFile(t, "a.txt", "original\n", 0o600)
	r.wantFile(t, "b.txt", "", 0)
	for _, l := range lines {
		for _, e := range l.Events {
			if e.Type == events.Undo {
				t.Logf("undo painted at seq %d", e.Seq)
			}
		}
	}
	_, db := r.finish(t, "restore-after.png")
	chats, _ := db.ListChats()
	changes, _ := db.Changes(chats[0].ID)
	last := changes[len(changes)-1]
	if last.Kind != store.ChangeUndo || len(last.Reverts) != 2 {
		t.Errorf("the last change %+v, want one undo of both runs", last)
	}
}

// The Changes review lists what the chat changed; Revert on a.txt puts it back as it was
// before the chat, and leaves b.txt. Alt+C, the shortcut its button shows, opens the review.
func TestDesktopTheChangesReviewRevertsOneFile(t *testing.T) {
	layoutCanMatter(t)
	r := twoRuns(t)
	r.app.key("alt+c")
	r.app.waitControl(rolePushButton, "Revert b.txt to before this chat", 20*time.Second)
	r.app.screenshot("changes-review.png")
	r.app.press("Revert a.txt to before this chat")
	r.waitLog(t, events.Undo, true, 30*time.Second)
	r.wantFile(t, "a.txt", "original\n", 0o600)
	r.wantFile(t, "b.txt", "new\n", 0o644)
	r.finish(t, "changes-reverted.png")
}

// "Show in folder" on a written file's card opens the folder that holds it, with the user's
// default app (xdg-open, here a stand-in on PATH that notes what it was asked to open).
func TestDesktopShowInFolderOpensTheFilesFolder(t *testing.T) {
	opened := openerOnPath(t)
	r := twoRuns(t)
	r.app.press("Show b.txt in its folder")
	real, _ := filepath.EvalSymlinks(r.workspace)
	waitOpenedOnPath(t, opened, real)
	r.finish(t, "show-in-folder.png")
}

// openerOnPath puts first on PATH an xdg-open that notes each path it is asked to open in the
// file it returns, for the app the test launches.
func openerOnPath(t *testing.T) (opened string) {
	t.Helper()
	bin := t.TempDir()
	opened = filepath.Join(t.TempDir(), "opened")
	writeFile(t, filepath.Join(bin, "xdg-open"), "#!/bin/sh\necho \"$1\" >> "+opened+"\n", 0o755)
	t.Setenv("PATH", pathWith(bin))
	return opened
}

// waitOpenedOnPath waits until the xdg-open of openerOnPath was asked to open each of want in
// turn, and only them.
func waitOpenedOnPath(t *testing.T, opened string, want ...string) {
	t.Helper()
	var lines string
	for _, w := range want {
		lines += w + "\n"
	}
	deadline := time.Now().Add(10 * time.Second)
	for {
		got := mustRead(opened)
		if got == lines {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("xdg-open was asked to open %q, want %q", got, want)
		}
		time.Sleep(100 * time.Millisecond)
	}
}

// A chat moved to another folder keeps its earlier runs' changes where they were made: after
// the move (Ctrl+O, the new folder's path typed, "Change this chat") a third run changes the
// new folder's a.txt; "Open" on the first run's card of a.txt opens the first folder's (with
// the user's default app: xdg-open, here a stand-in on PATH that notes what it was asked to
// open), the review names the first folder and opens its a.txt, and "Restore to here" on the first message puts
// both folders' files back as they were before the chat.
func TestDesktopRestoreAfterTheChatMovedPutsBackTheFirstFoldersFiles(t *testing.T) {
	opened := openerOnPath(t)
	r := twoRuns(t)
	second := t.TempDir()
	writeFile(t, filepath.Join(second, "a.txt"), "the second folder's own\n", 0o644)

	r.typeFolder(second)
	r.app.press("Change this chat")
	r.app.waitControl(rolePushButton, "Restore to here, before “Change a.txt”", 20*time.Second)
	r.waitHeaderFolder(second)
	r.waitComposerFocus()
	r.app.typeText("Change a.txt again")
	r.app.key("Return")
	r.waitLogN(t, events.RunFinished, 3, true, 60*time.Second)
	wantFile(t, filepath.Join(second, "a.txt"), "third\n", 0o644)

	var cards []a11yControl // the Open of each card of a.txt, the first run's first
	for deadline := time.Now().Add(20 * time.Second); len(cards) != 2; time.Sleep(200 * time.Millisecond) {
		if cards = r.app.controls(rolePushButton, "Open a.txt"); time.Now().After(deadline) {
			t.Fatalf("%d buttons named \"Open a.txt\", want one on each run's card", len(cards))
		}
	}
	r.app.activate(cards[0])
	real, _ := filepath.EvalSymlinks(r.workspace)
	waitOpenedOnPath(t, opened, filepath.Join(real, "a.txt"))

	// the review names the first folder's files with it, and opens its a.txt there
	r.app.key("alt+c")
	first := " in " + filepath.Base(r.workspace)
	r.app.waitControl(rolePushButton, "Revert b.txt"+first+" to before this chat", 20*time.Second)
	r.app.screenshot("moved-changes-review.png")
	r.app.press("Open a.txt" + first)
	waitOpenedOnPath(t, opened, filepath.Join(real, "a.txt"), filepath.Join(real, "a.txt"))
	r.app.key("alt+c")

	r.app.press("Restore to here, before “Change a.txt”")
	r.waitLog(t, events.Undo, true, 30*time.Second)
	r.wantFile(t, "a.txt", "original\n", 0o600)
	r.wantFile(t, "b.txt", "", 0)
	wantFile(t, filepath.Join(second, "a.txt"), "the second folder's own\n", 0o644)
	wantFile(t, filepath.Join(second, "b.txt"), "", 0)
	// the note names the first folder too: the chat's header shows the second one
	if !r.app.says("Undone: a.txt put back; b.txt removed (in the chat’s folder and in " + r.workspace + ", its earlier folder).") {
		t.Errorf("the note of the restore does not name the folder it wrote in (%s)", r.app.screenshot("moved-restored.png"))
	}
	_, db := r.finish(t, "moved-restored.png")
	chats, _ := db.ListChats()
	if len(chats) != 1 || chats[0].Workspace != second {
		t.Errorf("chats %+v, want the one chat, now in %s", chats, second)
	}
}

// deleteBuildModel deletes the folder build with everything in it.
var deleteBuildModel = ollamatest.Model{Name: "e2e-delete-build", Scripts: ollamatest.Scripts{
	"SU":   ollamatest.ToolCall("delete_path", map[string]any{"path": "build", "recursive": true}),
	"SUAT": []string{"Deleted build."},
}}

// An undo of a deletion that held a file too large to keep stops with a choice; keeping, it
// puts back the rest and the window names the file that is gone.
func TestDesktopAnUndoKeepingNamesTheFileTooLargeToKeepThatIsGone(t *testing.T) {
	r := startDesktopRunWith(t, deleteBuildModel, store.Settings{Think: "off", CheckpointMaxBytes: 16,
		ToolApproval: map[string]string{"delete_path": "auto"}}, "")
	if err := os.MkdirAll(filepath.Join(r.workspace, "build"), 0o755); err != nil {
		t.Fatal(err)
	}
	r.writeFile(t, "build/out.txt", "built\n", 0o644)
	r.writeFile(t, "build/big.bin", strings.Repeat("x", 64), 0o644)
	r.sendAndWait(t, "Clean the build folder", 1)
	r.wantFile(t, "build", "", 0)
	r.app.waitControl(rolePushButton, "Undo the run that changed build/big.bin and build/out.txt", 20*time.Second)

	r.app.key("alt+z")
	r.app.press("Keep mine beside it")
	const gone = "build/big.bin is gone: it was too large (64 bytes) to keep when it was deleted, so it could not be put back."
	if !r.app.says(gone) {
		t.Fatalf("the window does not say %q: %s", gone, r.app.screenshot("undo-not-put-back.png"))
	}
	r.wantFile(t, "build/out.txt", "built\n", 0o644)
	r.wantFile(t, "build/big.bin", "", 0)
	r.finish(t, "undo-not-put-back.png")
}

// waitNamed waits for an object of the window's accessibility tree, of any role, named name,
// and reports whether one came.
func (a *desktopApp) waitNamed(name string, timeout time.Duration) bool {
	for deadline := time.Now().Add(timeout); time.Now().Before(deadline); time.Sleep(200 * time.Millisecond) {
		found := false
		a.each(func(n a11yNode) { found = found || a.name(n) == name })
		if found {
			return true
		}
	}
	return false
}

// pressToggle activates the one toggle button (a button with aria-pressed) named name.
func (a *desktopApp) pressToggle(name string) {
	a.tb.Helper()
	const roleToggleButton a11yRole = 62 // ATSPI_ROLE_TOGGLE_BUTTON
	a.activate(a.waitControl(roleToggleButton, name, 20*time.Second))
}

// descriptions lists the accessible descriptions of the window's buttons named name.
func (a *desktopApp) descriptions(name string) []string {
	var out []string
	for _, c := range a.controls(rolePushButton, name) {
		v, err := a.a11yBus().Object(c.node.Dest, c.node.Path).GetProperty(atspiAccessible + ".Description")
		if err == nil {
			s, _ := v.Value().(string)
			out = append(out, s)
		}
	}
	return out
}

// After Alt+Z the card of the call whose change was taken back reads undone and the run's
// answer says its changes were undone, also after the app is started again; Alt+Y makes them
// read done again. The cards are titled by what happened, and a step's statistics are the
// description of a button rather than a line under every step.
func TestDesktopAnUndoneRunReadsUndoneInItsCardAndAnswerUntilARedo(t *testing.T) {
	r := twoRuns(t)
	const line = "The changes made here were undone: b.txt."
	if !r.app.waitNamed("Created b.txt", 20*time.Second) {
		t.Fatalf("no card titled %q (%s)", "Created b.txt", r.app.screenshot("undone-titles.png"))
	}
	stats := r.app.descriptions("Statistics of this step")
	if len(stats) == 0 || !strings.Contains(stats[0], "tokens") {
		t.Errorf("the steps' statistics buttons describe %q, want their tokens", stats)
	}
	if said := r.app.textsWith(" tokens written in "); len(said) != 0 {
		t.Errorf("the statistics are shown under the steps without being asked for: %q", said)
	}

	r.app.key("alt+z")
	r.waitLog(t, events.Undo, true, 30*time.Second)
	r.wantFile(t, "b.txt", "", 0)
	if !r.app.waitNamed("Created b.txt, undone", 20*time.Second) {
		t.Errorf("the card of the undone write does not read undone (%s)", r.app.screenshot("undone-card.png"))
	}
	if !r.app.says(line) {
		t.Errorf("the undone run's answer does not say %q", line)
	}
	if !r.app.waitNamed("Replaced a.txt", 5*time.Second) {
		t.Errorf("the first run's card no longer reads done")
	}
	_, db := r.finish(t, "undone-after-undo.png")
	db.Close()

	r.relaunch(t, twoRunsModel, "bridge-undone-relaunch")
	if !r.app.waitNamed("Created b.txt, undone", 20*time.Second) {
		t.Errorf("started again, the card of the undone write does not read undone (%s)", r.app.screenshot("undone-relaunched.png"))
	}
	if !r.app.says(line) {
		t.Errorf("started again, the undone run's answer does not say %q", line)
	}

	r.app.key("alt+y")
	r.waitLog(t, events.Redo, true, 30*time.Second)
	r.wantFile(t, "b.txt", "new\n", 0o644)
	if !r.app.waitNamed("Created b.txt", 20*time.Second) {
		t.Errorf("after the redo the card does not read done (%s)", r.app.screenshot("undone-redone.png"))
	}
	if !r.app.waitNoText(line, 20*time.Second) {
		t.Errorf("after the redo the answer still says %q", line)
	}
	r.finish(t, "undone-redone.png")
}

// Restore to here before the first message turns every later call that changed a file undone,
// and each run's answer says so.
func TestDesktopRestoreToHereTurnsEveryLaterRunsCardsUndone(t *testing.T) {
	r := twoRuns(t)
	r.app.press("Restore to here, before “Change a.txt”")
	r.waitLog(t, events.Undo, true, 30*time.Second)
	for _, name := range []string{"Replaced a.txt, undone", "Created b.txt, undone"} {
		if !r.app.waitNamed(name, 20*time.Second) {
			t.Errorf("no card reads %q (%s)", name, r.app.screenshot("restore-undone.png"))
		}
	}
	for _, line := range []string{"The changes made here were undone: a.txt.", "The changes made here were undone: b.txt."} {
		if !r.app.says(line) {
			t.Errorf("no answer says %q", line)
		}
	}
	r.finish(t, "restore-undone.png")
}

// A Revert of one file in Changes turns only the card of the call that changed it undone, and
// its run's answer says some of its changes were undone.
func TestDesktopARevertInChangesTurnsOnlyThatFilesCardUndone(t *testing.T) {
	r := twoRuns(t)
	r.app.key("alt+c")
	r.app.press("Revert a.txt to before this chat")
	r.waitLog(t, events.Undo, true, 30*time.Second)
	r.app.key("Escape") // the review closes; the chat is read again
	if !r.app.waitNamed("Replaced a.txt, undone", 20*time.Second) {
		t.Errorf("the reverted file's card does not read undone (%s)", r.app.screenshot("revert-undone.png"))
	}
	if !r.app.waitNamed("Created b.txt", 5*time.Second) {
		t.Errorf("the card of the file left as it is no longer reads done")
	}
	if !r.app.says("The changes made here were undone: a.txt.") {
		t.Errorf("the first run's answer does not say its change was undone")
	}
	r.finish(t, "revert-undone.png")
}

// A change waiting for approval is titled as a question of what it would do, and its diff
// numbers each line before and after the change; the side-by-side view is a toggle of it.
func TestDesktopAWaitingChangeIsTitledAndItsDiffNumbersItsLines(t *testing.T) {
	r := previewWaits(t)
	if !r.app.waitNamed("Replace hello.txt?", 20*time.Second) {
		t.Errorf("no card titled %q (%s)", "Replace hello.txt?", r.app.screenshot("diff-numbered.png"))
	}
	for _, name := range []string{"Diff: 1 line added, 1 removed", "Line 1 before", "Line 1 after"} {
		if !r.app.waitNamed(name, 10*time.Second) {
			t.Errorf("the diff has nothing named %q (%s)", name, r.app.screenshot("diff-numbered.png"))
		}
	}
	r.app.pressToggle("Side by side")
	if !r.app.waitNamed("Diff, side by side: 1 line added, 1 removed", 10*time.Second) {
		t.Errorf("the diff is not shown side by side (%s)", r.app.screenshot("diff-side-by-side.png"))
	}
	r.app.screenshot("diff-side-by-side.png")
	r.app.key("alt+d")
	r.waitLog(t, events.RunFinished, true, 60*time.Second)
	r.finish(t, "diff-denied.png")
}

// pausedRunModel edits a.txt (allowed without asking), then writes b.txt (asked), then answers:
// its run waits for the user part-way.
var pausedRunModel = ollamatest.Model{Name: "e2e-paused-run", Scripts: ollamatest.Scripts{
	"SU":     ollamatest.ToolCall("edit_file", map[string]any{"path": "a.txt", "old_string": "original", "new_string": "edited"}),
	"SUAT":   ollamatest.ToolCall("write_file", map[string]any{"path": "b.txt", "content": "new\n"}),
	"SUATAT": []string{"Edited a.txt and created b.txt."},
}}

// A run that waited for an approval part-way is one change: the window shows one Undo for it,
// and one Alt+Z puts back every file it changed, before and after the approval.
func TestDesktopOneAltZUndoesARunThatWaitedForAnApproval(t *testing.T) {
	r := startDesktopRunWith(t, pausedRunModel, store.Settings{Think: "off",
		ToolApproval: map[string]string{"edit_file": "auto", "write_file": "ask"}}, "")
	r.writeFile(t, "a.txt", "original\n", 0o600)
	r.app.typeText("Edit a.txt, then create b.txt")
	r.app.key("Return")
	r.waitLog(t, events.ToolApprovalRequest, true, 60*time.Second)
	r.wantFile(t, "a.txt", "edited\n", 0o600)
	r.app.key("alt+a")
	r.waitResumedFinished(t, 60*time.Second)
	r.wantFile(t, "b.txt", "new\n", 0o644)
	r.app.waitControlNamed(rolePushButton, "Undo the run that changed", 20*time.Second)
	var undos []string
	for _, n := range r.app.names(rolePushButton) {
		if strings.HasPrefix(n, `"Undo the run that changed`) {
			undos = append(undos, n)
		}
	}
	if len(undos) != 1 || !strings.Contains(undos[0], "a.txt") || !strings.Contains(undos[0], "b.txt") {
		t.Fatalf("the window offers %v, want one Undo for the run's two files (%s)", undos, r.app.screenshot("undo-approved-run-before.png"))
	}

	r.app.key("alt+z")
	r.waitLog(t, events.Undo, true, 30*time.Second)
	r.wantFile(t, "a.txt", "original\n", 0o600)
	r.wantFile(t, "b.txt", "", 0)
	r.app.waitNoControl(rolePushButton, undos[0][1:len(undos[0])-1], 20*time.Second)
	_, db := r.finish(t, "undo-approved-run.png")
	changes, _ := db.Changes(theOneChat(t, db).ID)
	if len(changes) != 2 || changes[0].Kind != store.ChangeRun || changes[1].Kind != store.ChangeUndo || len(changes[1].Reverts) != 1 {
		t.Errorf("changes %+v, want the run's one change and the undo that took it back", changes)
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
