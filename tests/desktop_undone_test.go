package tests

import (
	"strings"
	"testing"
	"time"

	"prototyper/events"
)

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
	if said := r.app.textsWith("tokens/s"); len(said) != 0 {
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
	for deadline := time.Now().Add(20 * time.Second); len(r.app.textsWith(line)) != 0; time.Sleep(200 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Errorf("after the redo the answer still says %q", line)
			break
		}
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
