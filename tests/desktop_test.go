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
	bin := desktopBinary(t)
	display := startXvfb(t)
	db := filepath.Join(t.TempDir(), "prototyper.db")

	app := launchDesktop(t, bin, display, []string{"--db", db, "--workspace", t.TempDir()})
	app.waitWindow("Prototyper", 60*time.Second)
	if got := app.windowName(); got != "Prototyper" {
		t.Fatalf("window title = %q, want %q", got, "Prototyper")
	}

	// The webview paints after the window maps; give it a moment to show the page.
	var colours int
	var shot string
	for deadline := time.Now().Add(30 * time.Second); time.Now().Before(deadline); time.Sleep(500 * time.Millisecond) {
		shot = app.screenshot("smoke.png")
		if colours, _ = colourCount(t, shot, 64); colours >= 16 {
			break
		}
	}
	if colours < 16 {
		t.Fatalf("the window shows %d colours: a blank screen, not the app (screenshot %s)", colours, shot)
	}
	t.Logf("screenshot %s shows %d+ colours", shot, colours)

	if err := app.closeWindow(15 * time.Second); err != nil {
		t.Fatalf("the app did not exit cleanly after its window was closed: %s\n%s", describeExit(err), app.out.String())
	}
}

// TestDesktopSecondInstanceOnTheSameDatabaseSaysSoAndExits opens the window, then starts a
// second instance on the same database: it must say "Prototyper is already running" and exit
// on its own, within seconds, while the first keeps running.
func TestDesktopSecondInstanceOnTheSameDatabaseSaysSoAndExits(t *testing.T) {
	bin := desktopBinary(t)
	display := startXvfb(t)
	db := filepath.Join(t.TempDir(), "prototyper.db")
	args := []string{"--db", db, "--workspace", t.TempDir()}

	first := launchDesktop(t, bin, display, args)
	first.waitWindow("Prototyper", 60*time.Second)

	start := time.Now()
	second := launchDesktop(t, bin, display, args)
	select {
	case err := <-second.done:
		second.exited, second.exitErr = true, err
	case <-time.After(20 * time.Second):
		t.Fatalf("the second instance is still running after 20s:\n%s", second.out.String())
	}
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
