package testenv

import (
	"encoding/json"
	"fmt"
	"net"
	"net/http"
	"net/http/httptest"
	"net/http/httputil"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"syscall"
	"testing"
	"time"
)

// MCPEverything returns the command that starts the reference MCP server
// (@modelcontextprotocol/server-everything, pinned in tests/mcp/package.json and installed by
// `make test`) on stdio: PROTOTYPER_MCP_EVERYTHING when set, else the installed one. Without
// it, or without node, it is [Missing].
func MCPEverything(tb testing.TB) string {
	tb.Helper()
	const how = "run `make mcp-test-servers` (npm installs tests/mcp/package.json)"
	if _, err := exec.LookPath("node"); err != nil {
		Missing(tb, "node (for the reference MCP server)", "install Node.js (`make test` does)")
	}
	if p := os.Getenv("PROTOTYPER_MCP_EVERYTHING"); p != "" {
		return p
	}
	_, file, _, _ := runtime.Caller(0)
	p := filepath.Join(filepath.Dir(file), "..", "..", "tests", "mcp", "node_modules", ".bin", "mcp-server-everything")
	if _, err := os.Stat(p); err != nil {
		Missing(tb, "the reference MCP server @modelcontextprotocol/server-everything", how)
	}
	abs, _ := filepath.Abs(p)
	return abs
}

// MCPEverythingHTTP serves the reference MCP server on streamable HTTP for the test and
// returns its url (…/mcp) and a function that kills the server (as a crash would). The server
// listens on a free port behind a gate on the loopback address, as a gateway would stand in
// front of it: a request that lacks one of headers (name → value) is refused with 401. Both
// stop with the test.
func MCPEverythingHTTP(tb testing.TB, headers map[string]string) (endpoint string, kill func()) {
	tb.Helper()
	cmd := MCPEverything(tb)
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		tb.Fatal(err)
	}
	addr := l.Addr().String()
	port := l.Addr().(*net.TCPAddr).Port
	l.Close()
	server := exec.Command(cmd, "streamableHttp")
	server.Env = append(os.Environ(), fmt.Sprintf("PORT=%d", port))
	if err := server.Start(); err != nil {
		tb.Fatalf("start the reference MCP server on streamable HTTP: %v", err)
	}
	kill = func() { _ = server.Process.Kill() }
	tb.Cleanup(func() { kill(); _ = server.Wait() })
	for deadline := time.Now().Add(30 * time.Second); ; time.Sleep(100 * time.Millisecond) {
		if c, err := net.Dial("tcp", addr); err == nil {
			c.Close()
			break
		}
		if time.Now().After(deadline) {
			tb.Fatalf("the reference MCP server does not listen on %s after 30 s", addr)
		}
	}
	target := &url.URL{Scheme: "http", Host: addr}
	proxy := httputil.NewSingleHostReverseProxy(target)
	gate := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		for k, v := range headers {
			if r.Header.Get(k) != v {
				http.Error(w, "missing or wrong "+k, http.StatusUnauthorized)
				return
			}
		}
		proxy.ServeHTTP(w, r)
	}))
	tb.Cleanup(gate.Close)
	return gate.URL + "/mcp", kill
}

// MCPServersFile writes an mcpServers file holding servers (name → entry) into a folder of
// the test and returns its path.
func MCPServersFile(tb testing.TB, servers map[string]any) string {
	tb.Helper()
	raw, err := json.Marshal(map[string]any{"mcpServers": servers})
	if err != nil {
		tb.Fatal(err)
	}
	p := filepath.Join(tb.TempDir(), "mcp.json")
	if err := os.WriteFile(p, raw, 0o600); err != nil {
		tb.Fatal(err)
	}
	return p
}

// MCPEverythingKillable returns the mcpServers entry of the reference server on stdio, and a
// function that kills its process (as a crash would) once it was started from that entry.
func MCPEverythingKillable(tb testing.TB) (server map[string]any, kill func()) {
	tb.Helper()
	pidFile := filepath.Join(tb.TempDir(), "pid")
	// The shell notes its process id, as the test sees it (from /proc: in a PID namespace of
	// its own $$ is 1), then becomes the server.
	server = map[string]any{"command": "sh", "args": []string{"-c", `read -r pid rest < /proc/self/stat; echo "$pid" > "$0"; exec "$1"`, pidFile, MCPEverything(tb)}}
	return server, func() {
		var pid int
		if raw, err := os.ReadFile(pidFile); err == nil {
			if _, err := fmt.Sscan(string(raw), &pid); err == nil {
				_ = syscall.Kill(pid, syscall.SIGKILL)
			}
		}
	}
}

// WriteWorkspaceServers writes cfg as ws/.prototyper/mcp.json, the workspace's own MCP server
// file.
func WriteWorkspaceServers(tb testing.TB, ws, cfg string) {
	tb.Helper()
	if err := os.MkdirAll(filepath.Join(ws, ".prototyper"), 0o755); err != nil {
		tb.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(ws, ".prototyper", "mcp.json"), []byte(cfg), 0o644); err != nil {
		tb.Fatal(err)
	}
}

// WorkspaceMarkerServer writes ws/.prototyper/mcp.json with one server whose start creates
// marker (and then exits): a test sees by the file whether the server was started.
func WorkspaceMarkerServer(tb testing.TB, ws, marker string) {
	tb.Helper()
	WriteWorkspaceServers(tb, ws, fmt.Sprintf(`{"mcpServers":{"marker":{"command":"sh","args":["-c","touch \"$0\"; exit 1",%q]}}}`, marker))
}
