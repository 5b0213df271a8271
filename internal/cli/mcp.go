package cli

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"text/tabwriter"
	"time"

	"prototyper/store"
	"prototyper/tools/mcptools"
)

// MCPFlags is --mcp-config, the MCP server file of the command line (beside the global one
// in the user config folder and the workspace's .prototyper/mcp.json).
type MCPFlags struct {
	MCPConfig string
}

// Register adds --mcp-config to fs.
func (m *MCPFlags) Register(fs *flag.FlagSet) {
	fs.StringVar(&m.MCPConfig, "mcp-config", "", "an MCP server `FILE` of the mcpServers shape, used beside "+
		displayPath(mcptools.UserFile())+" and the workspace's .prototyper/mcp.json")
}

// Set returns the MCP servers the flags and the files choose; a --mcp-config that names no
// file is an error.
func (m MCPFlags) Set() (*mcptools.Set, error) {
	if m.MCPConfig != "" {
		if _, err := os.Stat(m.MCPConfig); err != nil {
			return nil, fmt.Errorf("--mcp-config %s: there is no such file; give an MCP server file such as {\"mcpServers\": {\"NAME\": {\"command\": …}}}", m.MCPConfig)
		}
		abs, err := filepath.Abs(m.MCPConfig)
		if err != nil {
			return nil, err
		}
		return mcptools.NewSet(mcptools.UserFile(), abs), nil
	}
	return mcptools.NewSet(mcptools.UserFile()), nil
}

// StoredSet is Set with db's part: the MCP servers of its settings and the user's answers in
// it about workspaces' own server files.
func (m MCPFlags) StoredSet(db *store.DB) (*mcptools.Set, error) {
	set, err := m.Set()
	if err != nil {
		return nil, err
	}
	if settings, err := db.Settings(); err == nil {
		set.UseSettings(SettingsServers(settings))
	}
	set.Trust = StoredTrust(db)
	return set, nil
}

// Files are the server files the flags name (an absolute --mcp-config), which the agent's
// tools must refuse like the app's configuration folders: a file in the workspace that
// names the programs the app starts would otherwise be the agent's to rewrite.
func (m MCPFlags) Files() []string {
	if m.MCPConfig == "" {
		return nil
	}
	abs, err := filepath.Abs(m.MCPConfig)
	if err != nil {
		return nil
	}
	return []string{abs}
}

func displayPath(p string) string {
	if home, err := os.UserHomeDir(); err == nil && strings.HasPrefix(p, home+string(filepath.Separator)) {
		return "~" + p[len(home):]
	}
	return p
}

// mcpUsage is the usage of `prototyper mcp`.
var mcpUsage = strings.TrimSuffix(usageLines("mcp"), "\n")

// mcpCommand is `prototyper mcp list`, the MCP servers of a workspace, started, with their
// state and their tools, and `prototyper mcp allow`, which allows a workspace's own servers.
func mcpCommand(ctx context.Context, args []string, io IO) int {
	if len(args) > 0 && args[0] == "allow" {
		return mcpAllowCommand(args[1:], io)
	}
	if len(args) == 0 || args[0] != "list" {
		fmt.Fprintln(io.Err, mcpUsage)
		if len(args) == 0 || args[0] == "-h" || args[0] == "--help" {
			return ExitCompleted
		}
		return ExitUsage
	}
	var mf MCPFlags
	var common Common
	var workspace string
	var asJSON bool
	fs := commandFlags("mcp list", io, &common)
	mf.Register(fs)
	fs.StringVar(&workspace, "workspace", "", "the workspace `DIR` whose .prototyper/mcp.json applies (default: the current folder)")
	fs.BoolVar(&asJSON, "json", false, "print the servers as JSON")
	fs.Usage = func() { fmt.Fprintf(io.Err, "%s\n\n", mcpUsage); printFlags(io.Err, fs) }
	extra, err := parseInterleaved(fs, args[1:])
	if err != nil {
		return parseExit(err)
	}
	if len(extra) > 0 {
		fmt.Fprintf(io.Err, "prototyper mcp list: unexpected argument %q\n", extra[0])
		return ExitUsage
	}
	if workspace == "" {
		workspace, _ = os.Getwd()
	}
	set, err := mf.Set()
	if err != nil {
		printError(io.Err, "mcp list", err)
		return ExitUsage
	}
	defer set.Close()
	if note := useStoredMCP(set, common, workspace); note != "" {
		fmt.Fprintf(io.Err, "prototyper mcp list: %s\n", note)
	}
	set.ToolsFor(ctx, workspace) // starts them: their state and tools are what they answer
	status, err := set.Status(workspace)
	if err != nil {
		printError(io.Err, "mcp list", err)
		return ExitFailed
	}
	if asJSON {
		enc := json.NewEncoder(io.Out)
		enc.SetIndent("", "  ")
		if status == nil {
			status = []mcptools.Status{}
		}
		_ = enc.Encode(status)
		return ExitCompleted
	}
	if len(status) == 0 {
		fmt.Fprintf(io.Out, "No MCP servers: add them in the window's settings, to %s, to %s or to a file given with --mcp-config.\n",
			displayPath(mcptools.UserFile()), filepath.Join(".prototyper", mcptools.FileName))
		return ExitCompleted
	}
	tw := tabwriter.NewWriter(io.Out, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "SERVER\tSTATE\tTOOLS")
	for _, s := range status {
		fmt.Fprintf(tw, "%s\t%s\t%s\n", cell(s.Name), s.State, cell(strings.Join(s.Tools, " ")))
	}
	_ = tw.Flush()
	failed := 0
	for _, s := range status {
		if s.Error != "" {
			failed++
			fmt.Fprintf(io.Err, "prototyper mcp list: %s\n", Sanitize(s.Error))
		}
	}
	if failed > 0 {
		return ExitFailed
	}
	return ExitCompleted
}

// SettingsServers are the MCP servers of the settings (none when they hold none): what the
// window and a run give their server set.
func SettingsServers(s store.Settings) mcptools.Config {
	cfg, err := mcptools.Parse(s.MCPServers, mcptools.SettingsSource)
	if len(s.MCPServers) == 0 || err != nil { // refused when saved: only an older file could hold one
		return nil
	}
	return cfg
}

// useStoredMCP gives set the MCP servers of the stored settings, and the user's answer about
// workspace's own server file; it returns a sentence when they could not be read (the
// database is held by a window that writes, say).
func useStoredMCP(set *mcptools.Set, common Common, workspace string) string {
	path, err := common.DBPath()
	if err != nil {
		return ""
	}
	db, err := store.Open(path, store.Options{ReadOnly: true, LockTimeout: 500 * time.Millisecond})
	if errors.Is(err, store.ErrNoDatabase) {
		return ""
	}
	if err != nil {
		return "the MCP servers of the settings are left out: " + err.Error()
	}
	defer db.Close()
	settings, err := db.Settings()
	if err != nil {
		return "the MCP servers of the settings are left out: " + err.Error()
	}
	set.UseSettings(SettingsServers(settings))
	if abs, err := filepath.Abs(workspace); err == nil {
		if answer, err := db.WorkspaceTrust(abs); err == nil {
			set.Trust = func(dir, hash string) bool { return dir == abs && answer.AllowsHash(hash) }
		}
	}
	return ""
}

// StoredTrust is the user's answers in db about workspaces' own server files.
func StoredTrust(db *store.DB) func(workspace, hash string) bool {
	return func(workspace, hash string) bool {
		answer, err := db.WorkspaceTrust(workspace)
		return err == nil && answer.AllowsHash(hash)
	}
}

// mcpAllowCommand is `prototyper mcp allow`: it prints what the workspace's own server file
// runs and records that the user allows exactly these bytes of it.
func mcpAllowCommand(args []string, io IO) int {
	var common Common
	var workspace string
	fs := commandFlags("mcp allow", io, &common)
	fs.StringVar(&workspace, "workspace", "", "the workspace `DIR` whose .prototyper/mcp.json is allowed (default: the current folder)")
	fs.Usage = func() { fmt.Fprintf(io.Err, "%s\n\n", mcpUsage); printFlags(io.Err, fs) }
	if err := fs.Parse(args); err != nil {
		return parseExit(err)
	}
	if fs.NArg() > 0 {
		fmt.Fprintln(io.Err, mcpUsage)
		return ExitUsage
	}
	if workspace == "" {
		workspace, _ = os.Getwd()
	}
	workspace = mcptoolsAbs(workspace)
	servers, err := mcptools.ReadWorkspaceServers(workspace)
	if err != nil {
		printError(io.Err, "mcp allow", err)
		return ExitFailed
	}
	if servers == nil || len(servers.Servers) == 0 {
		fmt.Fprintf(io.Err, "prototyper mcp allow: %s has no MCP servers of its own (%s): nothing to allow\n", workspace, mcptools.WorkspaceFile(workspace))
		return ExitFailed
	}
	db, err := common.OpenDB(store.Options{LockTimeout: 500 * time.Millisecond})
	if err != nil {
		printError(io.Err, "mcp allow", err)
		return ExitFailed
	}
	defer db.Close()
	if err := db.SetWorkspaceTrust(workspace, store.WorkspaceTrust{Hash: servers.Hash, Allowed: true}); err != nil {
		printError(io.Err, "mcp allow", err)
		return ExitFailed
	}
	fmt.Fprintf(io.Out, "Allowed the MCP servers of %s, as the file is now (a change to it asks again):\n", servers.File)
	for _, line := range servers.Lines() {
		fmt.Fprintf(io.Out, "  %s\n", Sanitize(line))
	}
	return ExitCompleted
}

func mcptoolsAbs(dir string) string {
	if abs, err := filepath.Abs(dir); err == nil {
		return abs
	}
	return dir
}

// notAllowedMCP is the sentence that refuses a run while the folder it runs in (the chat's,
// for chatID; else workspace) has servers of its own the user has not allowed (nil when it
// has none, or they are allowed).
func notAllowedMCP(set *mcptools.Set, db *store.DB, chatID, workspace string) error {
	if chatID != "" {
		if c, err := db.Chat(chatID); err == nil && c.Workspace != "" {
			workspace = c.Workspace
		}
	}
	servers, err := set.NotAllowed(workspace)
	if err != nil || servers == nil {
		return nil // an unreadable file is the run's notice, as every server file's
	}
	return &mcptools.NotAllowedError{Servers: servers}
}
