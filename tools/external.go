package tools

import "strings"

// ServerToolPrefix starts the name of every tool of an MCP server: mcp__SERVER__TOOL.
const ServerToolPrefix = "mcp__"

// ServerOf is the server whose tool is named name, and false for a tool of no server.
func ServerOf(name string) (string, bool) {
	rest, ok := strings.CutPrefix(name, ServerToolPrefix)
	if !ok {
		return "", false
	}
	server, _, ok := strings.Cut(rest, "__")
	return server, ok && server != ""
}
