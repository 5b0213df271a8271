package tests

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"maps"
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

// mcpLongOperation is the reference server's tool that takes its duration in seconds and
// sends a progress notification after each of its steps.
const mcpLongOperation = "mcp__everything__trigger-long-running-operation"

// mcpConfigFile writes an mcpServers file naming the reference server "everything", on stdio
// with the given settings added (env, timeout…).
func mcpConfigFile(t *testing.T, settings ...map[string]any) string {
	t.Helper()
	server := map[string]any{"command": testenv.MCPEverything(t)}
	for _, s := range settings {
		maps.Copy(server, s)
	}
	return testenv.MCPServersFile(t, map[string]any{"everything": server})
}

// mcpHTTPServer serves the reference server on streamable HTTP behind a gate that wants a
// token, and returns its configuration: by url, the token in a header taken from
// $PROTOTYPER_TEST_TOOL_TOKEN, and the environment the app needs for it.
func mcpHTTPServer(t *testing.T) (server map[string]any, env []string) {
	t.Helper()
	endpoint, _ := testenv.MCPEverythingHTTP(t, map[string]string{"Authorization": "Bearer tool-token"})
	return map[string]any{"url": endpoint, "headers": map[string]string{"Authorization": "Bearer ${PROTOTYPER_TEST_TOOL_TOKEN}"}},
		[]string{"PROTOTYPER_TEST_TOOL_TOKEN=tool-token"}
}

// jsonEvent is what the tests read of a line of `run --json`.
type jsonEvent struct {
	Type   string `json:"type"`
	Name   string `json:"name"`
	State  string `json:"state"`
	OK     bool   `json:"ok"`
	Output string `json:"output"`
}

// mcpCallResult runs the model with the servers of cfg (approving every call) and returns
// the output of its one call of tool, and the whole output; the run must end well.
func mcpCallResult(t *testing.T, model ollamatest.Model, cfg string, env []string, tool string) (result jsonEvent, out string) {
	t.Helper()
	srv := ollamatest.Get(t)
	out, errOut, code := cliRunEnv(t, env, "run", "--json", "--ollama", srv.URL(), "--db", filepath.Join(t.TempDir(), "p.db"),
		"--workspace", t.TempDir(), "--mcp-config", cfg, "--model", model.Name, "--approve", "auto", "Go, with everything")
	if code != 0 {
		t.Fatalf("exit %d; stderr:\n%s\n%s", code, errOut, out)
	}
	return callResultOf(t, out, tool), out
}

// callResultOf is the result of the one call of tool in the output of `run --json`, which
// must show the call running first.
func callResultOf(t *testing.T, out, tool string) jsonEvent {
	t.Helper()
	var running bool
	for _, line := range strings.Split(strings.TrimSpace(out), "\n") {
		var e jsonEvent
		_ = json.Unmarshal([]byte(line), &e)
		switch {
		case e.Type == "tool.call" && e.Name == tool && e.State == "running":
			running = true
		case e.Type == "tool.result" && running:
			return e
		}
	}
	t.Fatalf("no call of %s seen running, then its result:\n%s", tool, out)
	return jsonEvent{}
}

// TestCLIRunCallsAToolOfTheReferenceMCPServer: a scripted model calls
// mcp__everything__echo of @modelcontextprotocol/server-everything, configured with
// --mcp-config on stdio and by url on streamable HTTP (behind a gate that wants the header
// configured); the call's card runs and completes, and the answer follows.
func TestCLIRunCallsAToolOfTheReferenceMCPServer(t *testing.T) {
	for _, transport := range []string{"stdio", "streamable HTTP"} {
		t.Run(transport, func(t *testing.T) {
			var cfg string
			var env []string
			if transport == "stdio" {
				cfg = mcpConfigFile(t)
			} else {
				var server map[string]any
				server, env = mcpHTTPServer(t)
				cfg = testenv.MCPServersFile(t, map[string]any{"everything": server})
			}
			res, out := mcpCallResult(t, mcpEchoModel, cfg, env, "mcp__everything__echo")
			if !res.OK || res.Output != "Echo: hello through MCP" || !strings.Contains(out, "echoed it.") {
				t.Errorf("result %+v; output:\n%s", res, out)
			}
		})
	}
}

// TestCLIRunGoesOnWhenAnMCPCallHearsNothingForItsTimeout: a call the server accepts and
// never answers ends at the server's "timeout" (2 s here) with one sentence, which the model
// reads and answers.
func TestCLIRunGoesOnWhenAnMCPCallHearsNothingForItsTimeout(t *testing.T) {
	start := time.Now()
	res, out := mcpCallResult(t, mcpHangModel, mcpConfigFile(t, map[string]any{"timeout": 2}), nil, mcpLongOperation)
	if res.OK || !strings.HasPrefix(res.Output, "the MCP server everything said nothing about this call for 2 s") ||
		strings.Contains(res.Output, "\n") || !strings.Contains(out, "did not finish.") {
		t.Errorf("result %+v; output:\n%s", res, out)
	}
	t.Logf("the run took %s", time.Since(start))
}

// TestCLIRunGoesOnWhenAnMCPServerDiesDuringACall: the server killed while it runs a call is
// one sentence in the call's result; the model reads it and the run ends well.
func TestCLIRunGoesOnWhenAnMCPServerDiesDuringACall(t *testing.T) {
	server, kill := testenv.MCPEverythingKillable(t)
	cfg := testenv.MCPServersFile(t, map[string]any{"everything": server})
	srv := ollamatest.Get(t)
	cmd := exec.Command(desktopBinary(t), "run", "--json", "--ollama", srv.URL(), "--db", filepath.Join(t.TempDir(), "p.db"),
		"--workspace", t.TempDir(), "--mcp-config", cfg, "--model", mcpHangModel.Name, "--approve", "auto", "Go, with everything")
	cmd.Env = append(os.Environ(), "HOME="+t.TempDir())
	var errOut bytes.Buffer
	cmd.Stderr = &errOut
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	var out strings.Builder
	sc := bufio.NewScanner(stdout)
	sc.Buffer(nil, 1<<20)
	for sc.Scan() {
		out.WriteString(sc.Text() + "\n")
		var e jsonEvent
		if json.Unmarshal(sc.Bytes(), &e) == nil && e.Type == "tool.call" && e.State == "running" {
			time.AfterFunc(300*time.Millisecond, kill) // once the call reached the server
		}
	}
	if err := cmd.Wait(); err != nil {
		t.Fatalf("%v; stderr:\n%s\n%s", err, errOut.String(), out.String())
	}
	res := callResultOf(t, out.String(), mcpLongOperation)
	if res.OK || res.Output != "the MCP server everything stopped during this call, which did not complete — Prototyper starts it again at the next message" ||
		!strings.Contains(out.String(), "did not finish.") {
		t.Errorf("result %+v; output:\n%s", res, out.String())
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

// TestCLIMCPListShowsServersStateAndTools: the reference server is running with its tools,
// on stdio and on streamable HTTP (by url, with a header); a server whose command is missing
// is failed, with one sentence on stderr.
func TestCLIMCPListShowsServersStateAndTools(t *testing.T) {
	remote, env := mcpHTTPServer(t)
	cfg := testenv.MCPServersFile(t, map[string]any{
		"everything": map[string]any{"command": testenv.MCPEverything(t)},
		"remote":     remote,
		"broken":     map[string]any{"command": "prototyper-no-such-mcp-server"},
	})
	out, errOut, code := cliRunEnv(t, env, "mcp", "list", "--mcp-config", cfg, "--workspace", t.TempDir())
	if code != 1 {
		t.Errorf("exit %d, want 1 (a server failed)", code)
	}
	for _, want := range []string{`everything\s+running\s+.*mcp__everything__echo`, `remote\s+running\s+.*mcp__remote__echo`, `broken\s+failed`} {
		if !regexp.MustCompile(want).MatchString(out) {
			t.Errorf("the list does not match %s", want)
		}
	}
	if t.Failed() {
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
	env := map[string]string{name: value}

	cfg := mcpConfigFile(t, map[string]any{"env": env})
	if _, errOut, code := cliRun(t, "mcp", "list", "--mcp-config", cfg, "--workspace", t.TempDir()); code != 0 {
		t.Fatalf("mcp list: exit %d: %s", code, errOut)
	}
	if pids := waitMarked(t, marker, func(n int) bool { return n == 0 }, 3*time.Second); len(pids) != 0 {
		t.Errorf("after the command ended, the server still runs: %v", pids)
	}

	cfg = testenv.MCPServersFile(t, map[string]any{"hung": map[string]any{"command": "sleep", "args": []string{"600"}, "env": env}})
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
	return testenv.MCPServersFile(t, map[string]any{"broken": map[string]any{"command": "prototyper-no-such-mcp-server"}})
}

// TestCLIRunShowsAnMCPCallsProgressOnATerminalAndEveryUpdateInJSON: the reference server's
// long operation (three steps, each a progress notification) run by `prototyper run` on a
// terminal (a pty, through script(1)) shows how far it is on its spinner line; --json prints
// every tool.progress event.
func TestCLIRunShowsAnMCPCallsProgressOnATerminalAndEveryUpdateInJSON(t *testing.T) {
	scriptBin := testenv.LookPath(t, "", "script", "install Debian's bsdutils (script, a terminal for the test)")
	srv := ollamatest.Get(t)
	cfg := mcpConfigFile(t)
	args := []string{desktopBinary(t), "run", "--ollama", srv.URL(), "--db", filepath.Join(t.TempDir(), "p.db"), "--workspace", t.TempDir(),
		"--mcp-config", cfg, "--model", mcpLongModel.Name, "--approve", "auto", "Go, with everything"}
	quoted := make([]string, len(args))
	for i, a := range args {
		quoted[i] = "'" + strings.ReplaceAll(a, "'", `'\''`) + "'"
	}
	cmd := exec.Command(scriptBin, "-qefc", strings.Join(quoted, " "), "/dev/null")
	cmd.Env = append(os.Environ(), "HOME="+t.TempDir(), "TERM=xterm")
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("run on a terminal: %v\n%q", err, out)
	}
	if !progressOfThree.Match(out) || !strings.Contains(string(out), "✓") || !strings.Contains(string(out), "The operation finished.") {
		t.Errorf("the terminal never showed how far the call was (n/3), or the call did not complete:\n%q", out)
	}

	_, jsonOut := mcpCallResult(t, mcpLongModel, cfg, nil, mcpLongOperation)
	if n := strings.Count(jsonOut, `"type":"tool.progress"`); n < 2 {
		t.Errorf("--json printed %d tool.progress events, want one per step (at least 2 of 3 after coalescing):\n%s", n, jsonOut)
	}
}
