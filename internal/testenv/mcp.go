package testenv

import (
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"testing"
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
