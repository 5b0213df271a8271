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
	testenv.WaitTreeGone(t, tree, 10*time.Second)
	t.Logf("the server and its child were gone %s after the window's SIGKILL", time.Since(killed).Round(time.Millisecond))
	_ = app.waitExit(10 * time.Second)
	testenv.WaitTreeGone(t, all, 10*time.Second)
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

func fileExists(path string) bool { _, err := os.Stat(path); return err == nil }

// TestCLIAWorkspacesOwnServersRunOnlyOnceAllowed: `run` (with --approve ask too) and `mcp
// list` in a folder whose .prototyper/mcp.json was never allowed start nothing and say which
// command allows it; `mcp allow` prints what it allows; then the servers start; a changed
// file is refused again.
func TestCLIAWorkspacesOwnServersRunOnlyOnceAllowed(t *testing.T) {
	ws, db := t.TempDir(), filepath.Join(t.TempDir(), "p.db")
	first := filepath.Join(t.TempDir(), "first")
	testenv.WorkspaceMarkerServer(t, ws, first)
	allowSays := "prototyper mcp allow --workspace " + ws

	_, errOut, code := cliRun(t, "run", "--db", db, "--ollama", "http://127.0.0.1:9", "--workspace", ws, "--model", "any", "--approve", "ask", "hello")
	if code == 0 || !strings.Contains(errOut, allowSays) || fileExists(first) {
		t.Fatalf("run in a folder never allowed: exit %d, marker %v, stderr %q; want a refusal naming `%s`, nothing started", code, fileExists(first), errOut, allowSays)
	}
	_, errOut, code = cliRun(t, "mcp", "list", "--db", db, "--workspace", ws)
	if code != 1 || !strings.Contains(errOut, allowSays) || fileExists(first) {
		t.Fatalf("mcp list in a folder never allowed: exit %d, marker %v, stderr %q", code, fileExists(first), errOut)
	}

	out, errOut, code := cliRun(t, "mcp", "allow", "--db", db, "--workspace", ws)
	if code != 0 || !strings.Contains(out, "marker: runs sh -c") || !strings.Contains(out, first) || fileExists(first) {
		t.Fatalf("mcp allow: exit %d, stdout %q, stderr %q; want the command printed, nothing started", code, out, errOut)
	}
	cliRun(t, "mcp", "list", "--db", db, "--workspace", ws)
	if !fileExists(first) {
		t.Fatal("the allowed server did not start")
	}

	second := filepath.Join(t.TempDir(), "second")
	testenv.WorkspaceMarkerServer(t, ws, second)
	_, errOut, code = cliRun(t, "mcp", "list", "--db", db, "--workspace", ws)
	if code != 1 || !strings.Contains(errOut, allowSays) || fileExists(second) {
		t.Errorf("mcp list after the file changed: exit %d, marker %v, stderr %q; want it refused again", code, fileExists(second), errOut)
	}
}

// TestCLIAServerNeverGetsTheAppsKeys: a server the user configured gets PATH, HOME and what
// its entry names, never the app's API key.
func TestCLIAServerNeverGetsTheAppsKeys(t *testing.T) {
	dump := filepath.Join(t.TempDir(), "env")
	cfg := testenv.MCPServersFile(t, map[string]any{"dumper": map[string]any{
		"command": "sh", "args": []string{"-c", `env > "$0"; exit 1`, dump}, "env": map[string]string{"GIVEN": "yes"}}})
	cliRunEnv(t, []string{"OPENAI_API_KEY=sk-app-secret", "PROTOTYPER_TEST_API_KEY=app-secret"},
		"mcp", "list", "--db", filepath.Join(t.TempDir(), "p.db"), "--mcp-config", cfg, "--workspace", t.TempDir())
	raw, err := os.ReadFile(dump)
	if err != nil {
		t.Fatal(err)
	}
	env := "\n" + string(raw)
	if !strings.Contains(env, "\nPATH=") || !strings.Contains(env, "\nGIVEN=yes\n") {
		t.Errorf("the server's environment lacks PATH or what its entry names:%s", env)
	}
	if strings.Contains(env, "OPENAI_API_KEY") || strings.Contains(env, "app-secret") {
		t.Errorf("the app's keys reached the server:%s", env)
	}
}

// TestCLIAKilledCommandLeavesNoProcessOfItsServersBehind: `mcp list` is killed with SIGKILL
// while its server (which started a child of its own that sleeps) hangs in its start; every
// process below it ends.
func TestCLIAKilledCommandLeavesNoProcessOfItsServersBehind(t *testing.T) {
	cfg := testenv.MCPServersFile(t, map[string]any{"hung": map[string]any{"command": "sh", "args": []string{"-c", "sleep 600 & exec sleep 601"}}})
	app := startCLI(t, "mcp", "list", "--db", filepath.Join(t.TempDir(), "p.db"), "--mcp-config", cfg, "--workspace", t.TempDir())
	var tree []int
	for deadline := time.Now().Add(20 * time.Second); len(tree) < 2; time.Sleep(20 * time.Millisecond) {
		if tree = tether.Descendants(app.Process.Pid); time.Now().After(deadline) {
			t.Fatalf("the command's tree is %v; want the server and its child", tree)
		}
	}
	_ = app.Process.Signal(syscall.SIGKILL)
	_ = app.Wait()
	killed := time.Now()
	testenv.WaitTreeGone(t, tree, 10*time.Second)
	t.Logf("the %d processes below the killed command were gone %s after its SIGKILL", len(tree), time.Since(killed).Round(time.Millisecond))
}
