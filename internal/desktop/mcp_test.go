package desktop

import (
	"encoding/json"
	"slices"
	"strings"
	"testing"
	"time"

	"prototyper/internal/cli"
	"prototyper/internal/testenv"
	"prototyper/store"
	"prototyper/tools/mcptools"
)

// TestMCPServersOfTheSettingsStartAndOfferTheirToolsToTheWindow: servers saved in the
// settings start for the workspace; the settings then list them running, and their tools
// with the ask policy; JSON that is not the mcpServers shape is refused with one sentence.
func TestMCPServersOfTheSettingsStartAndOfferTheirToolsToTheWindow(t *testing.T) {
	cmd := testenv.MCPEverything(t)
	d, _ := openTestDesktop(t, cli.DesktopOptions{Workspace: t.TempDir()})

	if err := d.SaveSettings(store.Settings{MCPServers: json.RawMessage(`{"mcpServers": {"bad name!": {"command": "x"}}}`)}); err == nil ||
		!strings.Contains(err.Error(), "may hold only letters") {
		t.Fatalf("a bad server name: %v", err)
	}
	raw, _ := json.Marshal(map[string]any{"mcpServers": map[string]any{"everything": map[string]any{"command": cmd}}})
	if err := d.SaveSettings(store.Settings{MCPServers: raw}); err != nil {
		t.Fatal(err)
	}
	deadline := time.Now().Add(30 * time.Second)
	var c Config
	for time.Now().Before(deadline) {
		var err error
		if c, err = d.Config(); err != nil {
			t.Fatal(err)
		}
		if len(c.MCPServers) == 1 && c.MCPServers[0].State == mcptools.StateRunning {
			break
		}
		time.Sleep(100 * time.Millisecond)
	}
	if len(c.MCPServers) != 1 || c.MCPServers[0].State != mcptools.StateRunning || c.MCPServers[0].Source != mcptools.SettingsSource {
		t.Fatalf("servers = %+v", c.MCPServers)
	}
	if !slices.Contains(c.Tools, "mcp__everything__echo") || c.ToolApproval["mcp__everything__echo"] != "ask" {
		t.Errorf("tools %v, approval %v", c.Tools, c.ToolApproval["mcp__everything__echo"])
	}
	if string(c.Saved.MCPServers) != string(raw) {
		t.Errorf("the settings' servers = %q", c.Saved.MCPServers)
	}
}
