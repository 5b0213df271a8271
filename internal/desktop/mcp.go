package desktop

import (
	"context"

	"prototyper/internal/cli"
	"prototyper/store"
	"prototyper/tools"
	"prototyper/tools/mcptools"
)

// startMCP starts the MCP servers of workspace in the background, so that their tools and
// their state are known when the settings open and the first message goes.
func (d *Desktop) startMCP(workspace string) {
	if workspace != "" {
		go d.mcp.ToolsFor(context.Background(), workspace)
	}
}

// mcpDefinitions are the definitions of the MCP tools of workspace's servers that run.
func (d *Desktop) mcpDefinitions(workspace string) []tools.Definition {
	m, err := d.mcp.Manager(workspace)
	if err != nil {
		return nil
	}
	var defs []tools.Definition
	for _, st := range m.Status() {
		if st.State != mcptools.StateRunning {
			continue
		}
		for _, name := range st.Tools {
			defs = append(defs, tools.Definition{Name: name, DefaultApproval: tools.ApprovalAsk})
		}
	}
	return defs
}

// mcpStatus is the state of workspace's MCP servers, for the settings; an unreadable server
// file is one failed entry naming it.
func (d *Desktop) mcpStatus(workspace string) []mcptools.Status {
	st, err := d.mcp.Status(workspace)
	if err != nil {
		return []mcptools.Status{{Name: mcptools.FileName, State: mcptools.StateFailed, Tools: []string{}, Error: err.Error()}}
	}
	if st == nil {
		st = []mcptools.Status{}
	}
	return st
}

// useMCPSettings gives the MCP servers of s to the window's servers, and starts them for the
// workspace in use.
func (d *Desktop) useMCPSettings(s store.Settings) {
	d.mcp.UseSettings(cli.SettingsServers(s))
	d.startMCP(d.workspace)
}
