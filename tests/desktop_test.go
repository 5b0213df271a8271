package tests

import (
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// TestDesktopSmokeWindowOpensShowsTheAppAndClosesCleanly starts the production binary under
// Xvfb with a private database and config, finds its window by title, takes a screenshot, and
// closes the window the way a user does.
func TestDesktopSmokeWindowOpensShowsTheAppAndClosesCleanly(t *testing.T) {
	layoutCanMatter(t)
	bin := desktopBinary(t)
	display := startXvfb(t)
	db := filepath.Join(t.TempDir(), "prototyper.db")

	app := launchDesktop(t, bin, display, []string{"--db", db, "--workspace", t.TempDir()})
	app.waitWindow("Prototyper", 60*time.Second)
	if got := app.windowName(); got != "Prototyper" {
		t.Fatalf("window title = %q, want %q", got, "Prototyper")
	}
	app.assertIconAndClass()

	// The webview paints after the window maps.
	shot := app.waitForPage("smoke.png", 30*time.Second)
	t.Logf("screenshot %s shows the app", shot)

	if err := app.closeWindow(15 * time.Second); err != nil {
		t.Fatalf("the app did not exit cleanly after its window was closed: %s\n%s", describeExit(err), app.out.String())
	}
}

// Ctrl+Q quits the app as closing its window does: it exits 0.
func TestDesktopCtrlQQuitsCleanly(t *testing.T) {
	app := launchDesktop(t, desktopBinary(t), startXvfb(t), []string{"--db", filepath.Join(t.TempDir(), "prototyper.db"), "--workspace", t.TempDir()})
	app.waitWindow("Prototyper", 60*time.Second)
	app.waitForPage("ctrl-q.png", 30*time.Second)
	app.key("ctrl+q")
	if err := app.waitExit(15 * time.Second); err != nil {
		t.Fatalf("after Ctrl+Q the app ended with %s:\n%s", describeExit(err), app.out.String())
	}
}

// TestDesktopSecondLaunchOnTheSameDatabaseRaisesTheFirstWindowAndExits is a user launching
// the app again from its icon while it runs, with another window in front: the window they
// already have comes to the front with the keyboard focus, the second launch exits 0 and says
// so on standard error (for a terminal), and an instance on another database runs beside them.
func TestDesktopSecondLaunchOnTheSameDatabaseRaisesTheFirstWindowAndExits(t *testing.T) {
	bin := desktopBinary(t)
	display := startXvfb(t)
	dir := t.TempDir()
	db, otherDB := filepath.Join(dir, "prototyper.db"), filepath.Join(dir, "other.db")

	first := launchDesktop(t, bin, display, []string{"--db", db, "--workspace", t.TempDir()})
	firstWindow := first.waitWindow("Prototyper", 60*time.Second)
	other := launchDesktop(t, bin, display, []string{"--db", otherDB, "--workspace", t.TempDir()})
	otherWindow := other.waitWindow("Prototyper", 60*time.Second)
	if firstWindow == otherWindow {
		t.Fatal("the two instances share a window")
	}
	other.focusWindow()
	if got := other.focusedWindow(); got != otherWindow {
		t.Fatalf("focused window = %s, want the other instance's %s", got, otherWindow)
	}

	start := time.Now()
	second := launchDesktop(t, bin, display, []string{"--db", db, "--model", "elsewhere"})
	err := second.waitExit(20 * time.Second)
	took := time.Since(start)
	if err != nil {
		t.Errorf("the second launch ended with %s, want exit status 0:\n%s", describeExit(err), second.out.String())
	}
	// the model it was given is not lost silently
	want := "Prototyper is already running with " + db + "; its window was brought to the front (--model only applies to a new window: choose it there)"
	if !strings.Contains(second.out.String(), want) {
		t.Errorf("the second launch said:\n%s\nwant a line with %q", second.out.String(), want)
	}
	t.Logf("the second launch exited after %s", took.Round(time.Millisecond))

	deadline := time.Now().Add(10 * time.Second)
	for first.focusedWindow() != firstWindow && time.Now().Before(deadline) {
		time.Sleep(100 * time.Millisecond)
	}
	if got := first.focusedWindow(); got != firstWindow {
		t.Errorf("after the second launch the focus is on window %s; want the first instance's %s", got, firstWindow)
	}
	first.screenshot("second-launch-raised.png")
	for _, app := range []*desktopApp{first, other} {
		if app.hasExited() {
			t.Fatalf("an instance exited: %s\n%s", describeExit(app.exitErr), app.out.String())
		}
		if err := app.closeWindow(15 * time.Second); err != nil {
			t.Errorf("an instance did not exit cleanly: %s", describeExit(err))
		}
	}
}

// TestDesktopSecondInstanceWithoutASessionBusSaysSoAndExits: with no session bus to meet on
// (a bare X server), the database's lock still keeps a second instance out with a clear
// sentence, within seconds, while the first keeps running.
func TestDesktopSecondInstanceWithoutASessionBusSaysSoAndExits(t *testing.T) {
	bin := desktopBinary(t)
	display := startXvfb(t)
	db := filepath.Join(t.TempDir(), "prototyper.db")
	args := []string{"--db", db, "--workspace", t.TempDir()}
	noBus := "DBUS_SESSION_BUS_ADDRESS="

	first := launchDesktop(t, bin, display, args, noBus)
	first.waitWindow("Prototyper", 60*time.Second)

	start := time.Now()
	second := launchDesktop(t, bin, display, args, noBus)
	second.waitExit(20 * time.Second)
	took := time.Since(start)
	want := "Prototyper is already running (database locked: " + db + ")"
	if !strings.Contains(second.out.String(), want) {
		t.Errorf("the second instance said:\n%s\nwant a line with %q", second.out.String(), want)
	}
	t.Logf("the second instance exited after %s (%s)", took.Round(time.Millisecond), describeExit(second.exitErr))
	if first.hasExited() {
		t.Fatalf("the first instance exited too: %s", describeExit(first.exitErr))
	}
	if err := first.closeWindow(15 * time.Second); err != nil {
		t.Errorf("the first instance did not exit cleanly: %s", describeExit(err))
	}
}
