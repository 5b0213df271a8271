package tests

import (
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"testing"
	"time"

	"prototyper/internal/testenv"
	"prototyper/internal/tether"
	"prototyper/store"
)

// workspaceLongServer writes ws/.prototyper/mcp.json with one server whose start creates
// marker, starts a child that sleeps, and then hangs (a server that never answers).
func workspaceLongServer(t *testing.T, ws, marker string) {
	t.Helper()
	testenv.WriteWorkspaceServers(t, ws, fmt.Sprintf(`{"mcpServers":{"marker":{"command":"sh","args":["-c","touch \"$0\"; sleep 600 & exec sleep 601",%q,"note\u202e"],"env":{"NODE_OPTIONS":"--require=./x.js"}}}}`, marker))
}

// waitFile waits until path exists.
func waitFile(t *testing.T, path string, timeout time.Duration) {
	t.Helper()
	for deadline := time.Now().Add(timeout); !fileExists(path); time.Sleep(50 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatalf("%s was not made within %s", path, timeout)
		}
	}
}

// sleepers are the processes below pid that run sleep: the server of workspaceLongServer and
// its child.
func sleepers(pid int) []int {
	var out []int
	for _, p := range tether.Descendants(pid) {
		if comm, err := os.ReadFile(fmt.Sprintf("/proc/%d/comm", p)); err == nil && strings.TrimSpace(string(comm)) == "sleep" {
			out = append(out, p)
		}
	}
	return out
}

// comms names the programs of pids, for a log.
func comms(pids []int) string {
	var out []string
	for _, p := range pids {
		if comm, err := os.ReadFile(fmt.Sprintf("/proc/%d/comm", p)); err == nil {
			out = append(out, strings.TrimSpace(string(comm)))
		}
	}
	return strings.Join(out, " ")
}

// TestDesktopAsksBeforeAFoldersOwnServersStart: the window opened on a folder whose
// .prototyper/mcp.json names a server asks first, showing its command with its arguments, and
// the server has not run; Allow (by keyboard) starts it. The app killed with SIGKILL leaves no
// process of the server behind. Opened again, the window starts it without asking; once the
// file changed, it asks again, and the changed server has not run; refused, it is reviewed
// from the settings and allowed there.
func TestDesktopAsksBeforeAFoldersOwnServersStart(t *testing.T) {
	bin := desktopBinary(t)
	display := startXvfb(t)
	r := newDesktopRun(t, store.Settings{})
	first := filepath.Join(t.TempDir(), "first")
	workspaceLongServer(t, r.workspace, first)
	args := []string{"--db", r.db, "--workspace", r.workspace, "--model", "none", "--ollama", "http://127.0.0.1:9"}
	launch := func() *desktopApp {
		app := launchDesktop(t, bin, display, args)
		app.waitWindow("Prototyper", 60*time.Second)
		app.waitForPage("e2e-trust-start.png", 30*time.Second)
		app.focusWindow()
		return app
	}

	app := launch()
	app.waitFocus(rolePushButton, "Don’t allow", 60*time.Second) // the safe answer has the focus
	if !app.says("sleep 600 & exec sleep 601") || !app.says(first) {
		t.Errorf("the dialog does not show the server's command with its arguments: %s", app.screenshot("e2e-trust-dialog.png"))
	}
	if !app.says("NODE_OPTIONS=--require=./x.js") { // a variable decides what runs as much as the command
		t.Errorf("the dialog does not show the value of the server's variable: %s", app.screenshot("e2e-trust-dialog.png"))
	}
	if !app.says("note<U+202E>") { // an override that would reorder what the user reads is a mark
		t.Errorf("the dialog does not show the bidirectional override as a mark: %s", app.screenshot("e2e-trust-dialog.png"))
	}
	t.Logf("the question: %s", app.screenshot("e2e-trust-dialog.png"))
	if fileExists(first) {
		t.Fatal("the folder's server ran before the user answered")
	}
	app.key("Tab")
	app.waitFocus(rolePushButton, "Allow", 10*time.Second)
	app.key("Return")
	app.waitNoControl(rolePushButton, "Allow", 20*time.Second)
	waitFile(t, first, 30*time.Second)

	var tree []int
	for deadline := time.Now().Add(20 * time.Second); len(tree) < 2; time.Sleep(50 * time.Millisecond) {
		if tree = sleepers(app.cmd.Process.Pid); time.Now().After(deadline) {
			t.Fatalf("the server's processes below the app are %v; want the server and its child", tree)
		}
	}
	all := tether.Descendants(app.cmd.Process.Pid) // the server's, the managed Ollama's, the web view's
	killed := time.Now()
	_ = app.cmd.Process.Signal(syscall.SIGKILL)
	waitTreeGone(t, tree, 10*time.Second)
	t.Logf("the server and its child were gone %s after the window's SIGKILL", time.Since(killed).Round(time.Millisecond))
	_ = app.waitExit(10 * time.Second)
	waitTreeGone(t, all, 10*time.Second)
	t.Logf("all %d processes below the window (%s) were gone %s after its SIGKILL", len(all), comms(all), time.Since(killed).Round(time.Millisecond))

	if err := os.Remove(first); err != nil {
		t.Fatal(err)
	}
	app = launch()
	waitFile(t, first, 60*time.Second) // allowed, as the file is: started without a question
	if slices.ContainsFunc(app.names(rolePushButton), func(n string) bool { return n == `"Allow"` }) {
		t.Errorf("the window asks again about a file the user allowed: %s", app.screenshot("e2e-trust-again.png"))
	}
	if err := app.closeWindow(30 * time.Second); err != nil {
		t.Fatal(err)
	}

	second := filepath.Join(t.TempDir(), "second")
	workspaceLongServer(t, r.workspace, second)
	app = launch()
	app.waitFocus(rolePushButton, "Don’t allow", 60*time.Second)
	if !app.says(second) {
		t.Errorf("the question about the changed file does not show its command: %s", app.screenshot("e2e-trust-changed.png"))
	}
	if fileExists(second) {
		t.Fatal("the changed file's server ran before the user answered")
	}
	app.key("Return") // Don't allow
	app.waitNoControl(rolePushButton, "Allow", 20*time.Second)
	if err := app.closeWindow(30 * time.Second); err != nil {
		t.Fatal(err)
	}
	db, err := store.Open(r.db, store.Options{ReadOnly: true})
	if err != nil {
		t.Fatal(err)
	}
	if answer, err := db.WorkspaceTrust(r.workspace); err != nil || answer.Allowed || answer.Hash == "" {
		t.Errorf("the answer kept = %+v, %v; want the changed file not allowed", answer, err)
	}
	if fileExists(second) {
		t.Error("the server ran although the user did not allow it")
	}
	db.Close()

	// Refused, it is not asked about again; the settings review it, and Allow starts it.
	app = launch()
	app.key("ctrl+comma")
	app.press("Review and allow…")
	app.waitFocus(rolePushButton, "Don’t allow", 30*time.Second)
	if fileExists(second) {
		t.Fatal("the refused server ran before the user allowed it")
	}
	app.press("Allow")
	waitFile(t, second, 30*time.Second)
	t.Logf("allowed from the settings: %s", app.screenshot("e2e-trust-review.png"))
	if err := app.closeWindow(30 * time.Second); err != nil {
		t.Fatal(err)
	}
}
