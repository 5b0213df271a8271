package tests

import (
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"prototyper/internal/ollamatest"
	"prototyper/internal/testenv"
)

// mcpConfigFile writes an mcpServers file naming the reference server "everything".
func mcpConfigFile(t *testing.T) string {
	t.Helper()
	raw, _ := json.Marshal(map[string]any{"mcpServers": map[string]any{
		"everything": map[string]any{"command": testenv.MCPEverything(t)},
	}})
	p := filepath.Join(t.TempDir(), "mcp.json")
	if err := os.WriteFile(p, raw, 0o600); err != nil {
		t.Fatal(err)
	}
	return p
}

// TestCLIRunCallsAToolOfTheReferenceMCPServer: a scripted model calls
// mcp__everything__echo of @modelcontextprotocol/server-everything, configured with
// --mcp-config; the call's card runs and completes, and the answer follows.
func TestCLIRunCallsAToolOfTheReferenceMCPServer(t *testing.T) {
	srv := ollamatest.Get(t)
	cfg := mcpConfigFile(t)
	out, errOut, code := cliRun(t, "run", "--json", "--ollama", srv.URL(), "--db", filepath.Join(t.TempDir(), "p.db"),
		"--workspace", t.TempDir(), "--mcp-config", cfg, "--model", mcpEchoModel.Name, "--approve", "auto", "Echo it")
	if code != 0 {
		t.Fatalf("exit %d; stderr:\n%s\n%s", code, errOut, out)
	}
	var sawCall, sawResult bool
	for _, line := range strings.Split(strings.TrimSpace(out), "\n") {
		var e struct {
			Type   string `json:"type"`
			Name   string `json:"name"`
			OK     bool   `json:"ok"`
			Output string `json:"output"`
		}
		_ = json.Unmarshal([]byte(line), &e)
		switch {
		case e.Type == "tool.call" && e.Name == "mcp__everything__echo":
			sawCall = true
		case e.Type == "tool.result" && sawCall:
			sawResult = true
			if !e.OK || e.Output != "Echo: hello through MCP" {
				t.Errorf("result = %s", line)
			}
		}
	}
	if !sawCall || !sawResult || !strings.Contains(out, "echoed it.") {
		t.Errorf("call %v, result %v; output:\n%s", sawCall, sawResult, out)
	}
}

// TestCLIRunAsksBeforeAnMCPToolByDefault: without --approve, an MCP tool asks (and with no
// terminal the run pauses, nothing runs).
func TestCLIRunAsksBeforeAnMCPToolByDefault(t *testing.T) {
	srv := ollamatest.Get(t)
	_, errOut, code := cliRun(t, "run", "--ollama", srv.URL(), "--db", filepath.Join(t.TempDir(), "p.db"),
		"--workspace", t.TempDir(), "--mcp-config", mcpConfigFile(t), "--model", mcpEchoModel.Name, "Echo it")
	if code != 4 || !strings.Contains(errOut, "mcp__everything__echo") {
		t.Errorf("exit %d, want 4 (paused for approval); stderr:\n%s", code, errOut)
	}
}

// TestCLIMCPListShowsServersStateAndTools: the reference server is running with its tools;
// a server whose command is missing is failed, with one sentence on stderr.
func TestCLIMCPListShowsServersStateAndTools(t *testing.T) {
	raw, _ := json.Marshal(map[string]any{"mcpServers": map[string]any{
		"everything": map[string]any{"command": testenv.MCPEverything(t)},
		"broken":     map[string]any{"command": "prototyper-no-such-mcp-server"},
	}})
	cfg := filepath.Join(t.TempDir(), "mcp.json")
	if err := os.WriteFile(cfg, raw, 0o600); err != nil {
		t.Fatal(err)
	}
	out, errOut, code := cliRun(t, "mcp", "list", "--mcp-config", cfg, "--workspace", t.TempDir())
	if code != 1 {
		t.Errorf("exit %d, want 1 (a server failed)", code)
	}
	if !regexp.MustCompile(`everything\s+running\s+.*mcp__everything__echo`).MatchString(out) || !regexp.MustCompile(`broken\s+failed`).MatchString(out) {
		t.Errorf("list:\n%s", out)
	}
	if strings.Count(strings.TrimSpace(errOut), "\n") != 0 || !strings.Contains(errOut, "prototyper-no-such-mcp-server is not installed") {
		t.Errorf("stderr = %q, want one sentence about the broken server", errOut)
	}
}

// markedProcesses lists the processes whose environment holds marker.
func markedProcesses(t *testing.T, marker string) []string {
	t.Helper()
	dirs, _ := filepath.Glob("/proc/[0-9]*/environ")
	var pids []string
	for _, f := range dirs {
		if env, err := os.ReadFile(f); err == nil && strings.Contains(string(env), marker) {
			pids = append(pids, filepath.Base(filepath.Dir(f)))
		}
	}
	return pids
}

// waitMarked waits until the processes holding marker number want (0: all gone).
func waitMarked(t *testing.T, marker string, want func(n int) bool, timeout time.Duration) []string {
	t.Helper()
	deadline := time.Now().Add(timeout)
	for {
		pids := markedProcesses(t, marker)
		if want(len(pids)) || time.Now().After(deadline) {
			return pids
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// TestMCPServerProcessesEndWithTheApp: a stdio server ends when the command ends, and also
// when the command is killed with SIGKILL while the server is still starting.
func TestMCPServerProcessesEndWithTheApp(t *testing.T) {
	if _, err := os.Stat("/proc/self/environ"); err != nil {
		t.Skip("needs /proc to see the server processes")
	}
	marker := fmt.Sprintf("PROTOTYPER_TEST_MARKER=%d", time.Now().UnixNano())
	name, value, _ := strings.Cut(marker, "=")
	write := func(servers map[string]any) string {
		raw, _ := json.Marshal(map[string]any{"mcpServers": servers})
		p := filepath.Join(t.TempDir(), "mcp.json")
		if err := os.WriteFile(p, raw, 0o600); err != nil {
			t.Fatal(err)
		}
		return p
	}
	env := map[string]string{name: value}

	cfg := write(map[string]any{"everything": map[string]any{"command": testenv.MCPEverything(t), "env": env}})
	if _, errOut, code := cliRun(t, "mcp", "list", "--mcp-config", cfg, "--workspace", t.TempDir()); code != 0 {
		t.Fatalf("mcp list: exit %d: %s", code, errOut)
	}
	if pids := waitMarked(t, marker, func(n int) bool { return n == 0 }, 3*time.Second); len(pids) != 0 {
		t.Errorf("after the command ended, the server still runs: %v", pids)
	}

	cfg = write(map[string]any{"hung": map[string]any{"command": "sleep", "args": []string{"600"}, "env": env}})
	cmd := exec.Command(desktopBinary(t), "mcp", "list", "--mcp-config", cfg, "--workspace", t.TempDir())
	cmd.Env = append(os.Environ(), "HOME="+t.TempDir())
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	if pids := waitMarked(t, marker, func(n int) bool { return n > 0 }, 10*time.Second); len(pids) == 0 {
		_ = cmd.Process.Kill()
		t.Fatal("the hung server never started")
	}
	_ = cmd.Process.Signal(syscall.SIGKILL)
	_ = cmd.Wait()
	if pids := waitMarked(t, marker, func(n int) bool { return n == 0 }, 3*time.Second); len(pids) != 0 {
		t.Errorf("after the command was killed, the server still runs: %v", pids)
		for _, p := range pids {
			if pid, err := strconv.Atoi(p); err == nil {
				_ = syscall.Kill(pid, syscall.SIGKILL)
			}
		}
	}
}

// TestCLIRunGoesOnWhenAnMCPServerCannotStart: a server whose command is missing is one
// `error` event (tools_unavailable) in the run, which goes on with the other tools.
func TestCLIRunGoesOnWhenAnMCPServerCannotStart(t *testing.T) {
	srv := ollamatest.Get(t)
	cfg := brokenMCPConfig(t)
	ws := t.TempDir()
	out, errOut, code := cliRun(t, "run", "--json", "--ollama", srv.URL(), "--db", filepath.Join(t.TempDir(), "p.db"),
		"--workspace", ws, "--mcp-config", cfg, "--model", writerModel.Name, "--approve", "auto", "Write hello.txt")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	if !strings.Contains(out, `"code":"tools_unavailable"`) || !strings.Contains(out, "prototyper-no-such-mcp-server is not installed") {
		t.Errorf("no tools_unavailable event naming the server:\n%s", out)
	}
	if _, err := os.Stat(filepath.Join(ws, "hello.txt")); err != nil {
		t.Errorf("the run did not go on with the file tools: %v", err)
	}
}

// TestCLIRunSaysOnTheTerminalWhichMCPServerCouldNotStart: without --json the sentence is one
// line on stderr, and the run goes on.
func TestCLIRunSaysOnTheTerminalWhichMCPServerCouldNotStart(t *testing.T) {
	srv := ollamatest.Get(t)
	cfg := brokenMCPConfig(t)
	ws := t.TempDir()
	out, errOut, code := cliRun(t, "run", "--ollama", srv.URL(), "--db", filepath.Join(t.TempDir(), "p.db"),
		"--workspace", ws, "--mcp-config", cfg, "--model", writerModel.Name, "--think", "on", "--approve", "auto", "Write hello.txt")
	assertWroteHello(t, ws, out, errOut, code)
	if strings.Count(errOut, "prototyper-no-such-mcp-server is not installed") != 1 {
		t.Errorf("stderr = %q, want the server's sentence once", errOut)
	}
}

// brokenMCPConfig writes an mcpServers file whose one server's command does not exist.
func brokenMCPConfig(t *testing.T) string {
	t.Helper()
	raw, _ := json.Marshal(map[string]any{"mcpServers": map[string]any{"broken": map[string]any{"command": "prototyper-no-such-mcp-server"}}})
	cfg := filepath.Join(t.TempDir(), "mcp.json")
	if err := os.WriteFile(cfg, raw, 0o600); err != nil {
		t.Fatal(err)
	}
	return cfg
}
