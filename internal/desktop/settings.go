package desktop

import (
	"encoding/json"
	"os"
	"strings"

	"prototyper/agentloop"
	"prototyper/internal/cli"
	"prototyper/model"
	"prototyper/model/ollama"
	"prototyper/store"
	"prototyper/tools"
	"prototyper/tools/mcptools"
)

// The settings have one type from the store to the window: [store.Settings]. [Config] carries
// them as saved, and beside them the facts the window only shows ([InEffect],
// [SettingDefaults], every tool's policy); the settings panel edits the saved settings and
// sends them back to [Desktop.SaveSettings]. The window's TypeScript of these types is
// generated (settingsts.go).

// Config is what the window shows in its header and settings: the session in effect, the
// settings as saved with the defaults their zero fields stand for, the tools, and where the
// database is.
type Config struct {
	InEffect
	// Saved: the settings as stored, which the settings panel edits and saves back whole.
	Saved store.Settings `json:"saved"`
	// Defaults: what the zero fields of Saved stand for.
	Defaults SettingDefaults `json:"defaults"`
	// ToolApproval is every tool's approval policy in effect (the saved ones, the defaults
	// of the others).
	ToolApproval map[string]string `json:"toolApproval"`
	Tools        []string          `json:"tools"`
	DBPath       string            `json:"dbPath"`
	// HostName is this machine's name: an address naming it is a local one.
	HostName string `json:"hostName,omitempty"`
	// MCPServers are the MCP servers of the workspace, with their state and tools.
	MCPServers []mcptools.Status `json:"mcpServers"`
	// RecentFolders are the folders new chats last took, newest first (the folder menu's).
	RecentFolders []RecentFolder `json:"recentFolders"`
	// WorkspaceProblem says, when the folder new chats take cannot be used (it is gone, or a
	// file), why and what to do; "" when it can, or when there is none yet.
	WorkspaceProblem string `json:"workspaceProblem,omitempty"`
}

// InEffect is what the session uses now, where it may differ from the saved settings (a flag
// chose it, or a default stands for a zero field).
type InEffect struct {
	// Workspace is the folder of new chats.
	Workspace string `json:"workspace"`
	// Model is the model of the next message.
	Model string `json:"model"`
	// OllamaURL is the address of the Ollama server in use.
	OllamaURL string `json:"ollamaUrl"`
	// Provider is the API the model server in use speaks.
	Provider string `json:"provider" ts:"Provider"`
	// Theme is the window's look in effect.
	Theme string `json:"theme" ts:"Theme"`
	// Sidebar is the saved choice of showing the list of chats ("": when the window is wide enough).
	Sidebar string `json:"sidebar,omitempty" ts:"SidebarChoice"`
	// Instructions are the user's instructions for the model in Workspace.
	Instructions string `json:"instructions,omitempty"`
}

// SettingDefaults are what the zero fields of the settings stand for: the panel shows them
// beside an empty field, or as its placeholder.
type SettingDefaults struct {
	// Think is the thinking level of no level.
	Think string `json:"think" ts:"ThinkLevel"`
	// ContextCap is the most the context chosen from free memory takes, with no cap set.
	ContextCap int `json:"contextCap"`
	// CheckpointMaxBytes is the largest file kept for undo, with no limit set.
	CheckpointMaxBytes int64 `json:"checkpointMaxBytes"`
	// LoopRepeats is how many repeated calls stop a run, with no number set.
	LoopRepeats int `json:"loopRepeats"`
	// OlderTurns is what a run does with older messages that no longer fit, with no choice made.
	OlderTurns string `json:"olderTurns" ts:"OlderTurnsPolicy"`
	// CommandDeny is the deny list of no list saved.
	CommandDeny []string `json:"commandDeny"`
}

// defaults is the one SettingDefaults: the store's.
var defaults = SettingDefaults{Think: store.DefaultThink, ContextCap: store.DefaultContextCap,
	CheckpointMaxBytes: store.DefaultCheckpointMaxBytes, LoopRepeats: store.DefaultLoopRepeats,
	OlderTurns: store.SummarizeAsk, CommandDeny: store.DefaultCommandDeny}

// Config returns the session in effect, the settings as saved with their defaults, and every
// tool's approval policy.
func (d *Desktop) Config() (Config, error) {
	s, err := d.db.Settings()
	if err != nil {
		return Config{}, err
	}
	workspace, model := d.session()
	_, url := d.server.Client()
	host, _ := os.Hostname()
	c := Config{Saved: s, Defaults: defaults, DBPath: d.db.Path(), HostName: host, ToolApproval: map[string]string{},
		RecentFolders: recentFolders(s.RecentFolders),
		InEffect: InEffect{Workspace: workspace, Model: model, OllamaURL: url, Provider: d.server.Endpoint().Provider,
			Theme: s.ThemeName(), Sidebar: s.Sidebar, Instructions: s.InstructionsFor(workspace)}}
	for _, def := range append(tools.WorkspaceDefinitions(), d.mcpDefinitions(workspace)...) {
		c.Tools = append(c.Tools, def.Name)
		c.ToolApproval[def.Name] = agentloop.Policy(s.ToolApproval, def)
	}
	c.MCPServers = d.mcpStatus(workspace)
	if workspace != "" {
		if _, err := checkFolder(workspace); err != nil {
			c.WorkspaceProblem = err.Error()
		}
	}
	return c, nil
}

// SaveSettings stores the settings the panel was given in [Config.Saved], edited (the store
// refuses invalid ones, and then nothing changes); a new Ollama address applies to the runs
// that start next. What the session keeps of its own is said by [keptBySession].
func (d *Desktop) SaveSettings(in store.Settings) error {
	d.mu.Lock()
	defer d.mu.Unlock()
	_, url := d.server.Client()
	if err := (model.Endpoint{APIKeyEnv: in.APIKeyEnv}).Check(); err != nil {
		return err
	}
	saved, err := d.db.UpdateSettings(func(s *store.Settings) error {
		*s = keptBySession(in, *s, url, d.workspace, d.model)
		return nil
	})
	if err != nil {
		return err
	}
	if !saved.StartsOllama() {
		d.serve.Stop() // the user runs Ollama: the port is theirs
	}
	d.useMCPSettings(saved)
	return useSettings(d.server, saved)
}

// keptBySession is the settings the panel sent (in) as they are saved over those stored: every
// field as the panel sent it, except what the panel does not edit or cannot know, kept here:
//   - RecentFolders, AckFallbackMs and Sidebar are stored's: the folder menu, the bridge and
//     the list's toggle set them, never the panel;
//   - Workspace and DefaultModel are the session's (workspace, modelName), the next start's
//     presets as at every message, and the workspace goes first among the recent folders;
//   - OllamaURL and Provider: the panel shows and sends those in use (a flag may have chosen
//     them), "" for the address standing for the one in use (url); one that means what is
//     stored keeps its stored spelling ("" too), so that saving does not write a default;
//   - Instructions: the panel sends the saved map with the session workspace's entry
//     edited, stored under the folder's clean path ("" removes it);
//   - MCPServers: the panel sends a document it cannot read as the JSON string of its text,
//     which is kept as that text so that the MCP code's sentence says what is wrong with it;
//     a blank one is none.
//
// Text typed into fields (addresses, names) is trimmed.
func keptBySession(in, stored store.Settings, url, workspace, modelName string) store.Settings {
	s := in
	s.RecentFolders, s.AckFallbackMs, s.Sidebar = stored.RecentFolders, stored.AckFallbackMs, stored.Sidebar
	s.Workspace, s.DefaultModel = workspace, modelName
	if s.OllamaURL = cli.FirstNonBlank(in.OllamaURL, url); sameAddress(s.OllamaURL, stored.OllamaURL) {
		s.OllamaURL = stored.OllamaURL
	}
	if providerOf(s.Provider) == providerOf(stored.Provider) {
		s.Provider = stored.Provider
	}
	s.BaseURL, s.APIKeyEnv, s.OllamaBinary = strings.TrimSpace(in.BaseURL), strings.TrimSpace(in.APIKeyEnv), strings.TrimSpace(in.OllamaBinary)
	s.MCPServers = mcpDocument(in.MCPServers)
	s.Instructions = nil
	for dir, text := range in.Instructions {
		if dir != workspace {
			s.SetInstructions(dir, text)
		}
	}
	if text, ok := in.Instructions[workspace]; ok { // last: the panel's edit wins over an older spelling of its folder
		s.SetInstructions(workspace, text)
	}
	s.RememberFolder(workspace)
	return s
}

// mcpDocument is the MCP document the panel sent as it is stored: the text of a JSON string
// (what the panel could not read), none for blank text or null.
func mcpDocument(raw json.RawMessage) json.RawMessage {
	var text string
	if json.Unmarshal(raw, &text) != nil {
		text = string(raw)
	}
	if text = strings.TrimSpace(text); text == "" || text == "null" {
		return nil
	}
	return json.RawMessage(text)
}

// sameAddress reports whether two Ollama addresses of the settings name the same server, as
// the client resolves them ("" is OLLAMA_HOST, else the default).
func sameAddress(a, b string) bool {
	ua, errA := ollama.ResolveHost(a)
	ub, errB := ollama.ResolveHost(b)
	return errA == nil && errB == nil && ua.String() == ub.String()
}

// providerOf is the provider a Settings.Provider stands for ("" is Ollama).
func providerOf(p string) string { return cli.FirstNonBlank(p, store.ProviderOllama) }
