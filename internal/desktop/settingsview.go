package desktop

import (
	"encoding/json"
	"strings"

	"prototyper/internal/cli"
	"prototyper/store"
)

// The window's settings ([Settings], the panel's one type, generated for TypeScript) and the
// stored ones ([store.Settings]) are translated here and nowhere else: [settingsShown] on the
// way to the panel, [Settings.saveInto] on the way back. A field not named in a comment is the
// stored value as it is; each other one says why it differs.

// settingsShown is what the panel shows of s: workspace and model are the session's (the next
// chat's, which a flag may have set), url and provider those the server uses now.
func settingsShown(s store.Settings, workspace, model, url, provider string) Settings {
	return Settings{Workspace: workspace, Model: model, OllamaURL: url, Provider: provider,
		// the values in effect, defaults filled in: the panel shows what a run will use
		Think: s.ThinkLevel(), CheckpointMaxBytes: s.CheckpointLimit(),
		LoopRepeats: s.LoopLimit(), OlderTurns: s.OlderTurnsPolicy(), Theme: s.ThemeName(), CommandDeny: s.CommandDenyList(),
		// as stored, 0 for none: a default shown as a value would come back as a cap the user
		// never set; the panel shows the default beside it
		ContextCap: s.ContextCap, ContextCapDefault: store.DefaultContextCap,
		// stored as ManualOllama so that its zero value starts Ollama; the panel asks the positive question
		StartOllama: s.StartsOllama(),
		// a text field: the JSON document as the user wrote it
		MCPJSON: string(s.MCPServers),
		// the panel edits the session workspace's instructions; the store keeps every folder's
		Instructions: s.InstructionsFor(workspace),
		// an empty map, never null: the panel lists entries and removes them
		AlwaysAllow: nonNil(s.AlwaysAllow), CommandRules: nonNil(s.CommandRules),
		ToolApproval:        map[string]string{}, // filled by Config with every tool's policy in effect
		FirstByteTimeoutSec: s.FirstByteTimeoutSec, OllamaBinary: s.OllamaBinary, MaxAnswerBytes: s.MaxAnswerBytes,
		BaseURL: s.BaseURL, APIKeyEnv: s.APIKeyEnv, KeepAliveMin: s.KeepAliveMin,
		IgnoreTextToolCalls: s.IgnoreTextToolCalls, UnconfinedCommands: s.UnconfinedCommands, Sidebar: s.Sidebar}
}

// saveInto writes what the panel saved into s. url, workspace and model are those in effect,
// kept where the panel sent none.
func (in Settings) saveInto(s *store.Settings, url, workspace, model string) {
	// "" (or blanks) keeps the one in effect: the panel may not know it yet
	s.OllamaURL, s.Workspace, s.DefaultModel = cli.FirstNonBlank(in.OllamaURL, url), workspace, model
	s.Think, s.ContextCap, s.ToolApproval = in.Think, in.ContextCap, in.ToolApproval
	s.FirstByteTimeoutSec, s.MaxAnswerBytes, s.OllamaBinary = in.FirstByteTimeoutSec, in.MaxAnswerBytes, in.OllamaBinary
	s.ManualOllama = !in.StartOllama // see settingsShown
	// absent (nil) keeps what is saved: a window that does not show these sends none
	if in.AlwaysAllow != nil {
		s.AlwaysAllow = in.AlwaysAllow
	}
	if in.CommandRules != nil {
		s.CommandRules = in.CommandRules
	}
	if in.CommandDeny != nil {
		s.CommandDeny = in.CommandDeny
	}
	if in.CheckpointMaxBytes > 0 {
		s.CheckpointMaxBytes = in.CheckpointMaxBytes
	}
	if in.Theme != "" {
		s.Theme = in.Theme
	}
	if in.OlderTurns != "" {
		s.OlderTurns = in.OlderTurns
	}
	if in.Sidebar != "" {
		s.Sidebar = in.Sidebar
	}
	s.UnconfinedCommands = in.UnconfinedCommands
	// typed into text fields: spaces around them are no part of an address or a name
	s.Provider, s.BaseURL, s.APIKeyEnv = in.Provider, strings.TrimSpace(in.BaseURL), strings.TrimSpace(in.APIKeyEnv)
	s.MCPServers = mcpDocument(in.MCPJSON)
	s.KeepAliveMin, s.LoopRepeats, s.IgnoreTextToolCalls = in.KeepAliveMin, in.LoopRepeats, in.IgnoreTextToolCalls
	s.SetInstructions(workspace, in.Instructions)
	// the folder saved is the one in use: the folder menu offers it again
	s.RememberFolder(workspace)
}

// mcpDocument is the panel's MCP text as stored: the JSON document, or none for blank text
// (the store checks the document before it keeps it).
func mcpDocument(text string) json.RawMessage {
	if strings.TrimSpace(text) == "" {
		return nil
	}
	return json.RawMessage(strings.TrimSpace(text))
}

// nonNil is m, or an empty map for none.
func nonNil[V any](m map[string]V) map[string]V {
	if m == nil {
		return map[string]V{}
	}
	return m
}
