package tests

import (
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"prototyper/internal/testenv"
	"prototyper/internal/tether"
)

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
	waitTreeGone(t, tree, 10*time.Second)
	t.Logf("the %d processes below the killed command were gone %s after its SIGKILL", len(tree), time.Since(killed).Round(time.Millisecond))
}
