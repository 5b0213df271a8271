package store

import (
	"encoding/json"
	"time"

	"prototyper/events"
	"prototyper/model/vocab"
	"prototyper/tools"
)

// Message roles: the store keeps a message in the role the model reads it in.
const (
	RoleSystem    = vocab.RoleSystem
	RoleUser      = vocab.RoleUser
	RoleAssistant = vocab.RoleAssistant
	RoleTool      = vocab.RoleTool
)

// StopInterrupted is the stop reason of a run that was live when the process died: the
// store's own, beside the design's stop reasons of run.finished (events.Stop*).
const StopInterrupted = "interrupted"

// An [Approval]: the decision on a tool call (also the tool.approval_resolved event's
// "decision") and who took it (the tool.approval_* events' "by").
const (
	DecisionAllow, DecisionDeny = "allow", "deny"
	ByUser, ByPolicy, ByHook    = "user", "policy", "hook"
)

// Chat is one conversation's summary: what the chat list shows. It is stored apart from the
// messages, so that listing chats never reads them.
type Chat struct {
	ID           string    `json:"id"`
	Title        string    `json:"title"`
	Model        string    `json:"model,omitempty"`
	Workspace    string    `json:"workspace,omitempty"`
	CreatedAt    time.Time `json:"createdAt"`
	UpdatedAt    time.Time `json:"updatedAt"`
	MessageCount int       `json:"messageCount"`
}

// Message is one message of a chat, as the model and the window see it.
type Message struct {
	ID         string     `json:"id"`
	ChatID     string     `json:"chatId"`
	RunID      string     `json:"runId,omitempty"`
	Role       string     `json:"role"`
	Content    string     `json:"content"`
	Thinking   string     `json:"thinking,omitempty"`
	ThinkingMs int64      `json:"thinkingMs,omitempty"`
	ToolCalls  []ToolCall `json:"toolCalls,omitempty"`
	// ToolName and ToolCallID are set on a tool-role message: which call it answers.
	ToolName   string    `json:"toolName,omitempty"`
	ToolCallID string    `json:"toolCallId,omitempty"`
	Images     [][]byte  `json:"images,omitempty"` // raw bytes; base64 strings in JSON
	CreatedAt  time.Time `json:"createdAt"`
	UpdatedAt  time.Time `json:"updatedAt"`
	// Complete is false while the message streams (and stays false if the stream never ended).
	Complete   bool   `json:"complete"`
	DoneReason string `json:"doneReason,omitempty"`
	Usage      *Usage `json:"usage,omitempty"`
	// Instructions, on a system message, names where the project instructions it shows came
	// from ("AGENTS.md", "settings"): the message shows the chat what was added to the
	// system prompt, and is never sent to the model as a message of its own.
	Instructions string `json:"instructions,omitempty"`
	// SummaryOf, on a system message, is the id of the last message that the message's
	// summary stands for: made by the model when the older turns no longer fit its context,
	// it is sent in their place from then on.
	SummaryOf string `json:"summaryOf,omitempty"`
	// Files are the files of the workspace a user's message named with @path, as they were
	// read when it was sent; the model reads them after the message's text.
	Files []FileAttachment `json:"files,omitempty"`
}

// FileAttachment is one file a message named with @path, and its content as sent.
type FileAttachment struct {
	Path    string `json:"path"`
	Content string `json:"content"`
}

// ToolCall is a call the model asked for in an assistant message.
type ToolCall struct {
	ID   string          `json:"id"`
	Name string          `json:"name"`
	Args json.RawMessage `json:"args,omitempty"`
	// Recovered is true for a call the model wrote as text in its answer, executed as a call.
	Recovered bool `json:"recovered,omitempty"`
}

// Usage is the token accounting of one message, stored as message.completed carried it.
type Usage = events.Usage

// ToolCallRecord is the persisted truth about one tool call: whether it was approved, whether
// it is still pending (true from just before execution until its result is committed), and
// what it returned. It never says what the window painted.
type ToolCallRecord struct {
	ID        string          `json:"id"` // the tool call's id
	ChatID    string          `json:"chatId"`
	RunID     string          `json:"runId,omitempty"`
	MessageID string          `json:"messageId,omitempty"` // the assistant message that asked
	Name      string          `json:"name"`
	Args      json.RawMessage `json:"args,omitempty"`
	// Workspace is the folder the call ran in: its run's workspace. The chat's folder may
	// change later; the paths of the call stay in this one.
	Workspace string `json:"workspace,omitempty"`
	// AwaitingApproval is true while the call waits for the user's decision (not yet run).
	AwaitingApproval bool            `json:"awaitingApproval,omitempty"`
	Pending          bool            `json:"pending"`
	OK               bool            `json:"ok"`
	Output           string          `json:"output,omitempty"`  // what the model was told
	Details          json.RawMessage `json:"details,omitempty"` // for the window: path, bytes, diff
	StartedAt        time.Time       `json:"startedAt,omitzero"`
	FinishedAt       time.Time       `json:"finishedAt,omitzero"`
	DurationMs       int64           `json:"durationMs,omitempty"`
	Approval         *Approval       `json:"approval,omitempty"`
	// Preview is the change the call would make, shown while it awaits approval.
	Preview *tools.Preview `json:"preview,omitempty"`
	// Recovered is true for a call the model wrote as text, executed as a call.
	Recovered bool `json:"recovered,omitempty"`
	// Origin is where the call came from: events.OriginText for a call the model wrote as
	// text, "" for a native one. A record stored before the field existed reads its origin
	// from Recovered.
	Origin string `json:"origin,omitempty"`
	// NotRun is why the call did not run (events.NotRun*), for a call that neither ran nor
	// was denied; "" otherwise.
	NotRun string `json:"notRun,omitempty"`
	// Stopped is true for a call that was running when the user stopped its run (neither
	// completed nor failed). A record stored before the field existed reads false.
	Stopped bool `json:"stopped,omitempty"`
}

// UnmarshalJSON reads a record as stored, also one stored before it had an origin.
func (r *ToolCallRecord) UnmarshalJSON(b []byte) error {
	type stored ToolCallRecord // without this method
	if err := json.Unmarshal(b, (*stored)(r)); err != nil {
		return err
	}
	if r.Recovered && r.Origin == "" {
		r.Origin = events.OriginText
	}
	return nil
}

// Approval is how a call was allowed or denied.
type Approval struct {
	Decision  string    `json:"decision"`         // DecisionAllow or DecisionDeny
	By        string    `json:"by"`               // ByUser, ByPolicy or ByHook
	Reason    string    `json:"reason,omitempty"` // shown to the user and, on deny, to the model
	DecidedAt time.Time `json:"decidedAt,omitzero"`
}

// ToolResult completes a pending [ToolCallRecord].
type ToolResult struct {
	OK      bool
	Output  string
	Details json.RawMessage
	// Stopped: the user stopped the call's run while it ran.
	Stopped bool
	// NotRun is why a call whose record was started did not run after all (events.NotRun*:
	// the run was stopped just before its tool started); "" for a call that ran.
	NotRun string
	// FinishedAt defaults to now.
	FinishedAt time.Time
	// After is what the call left at the paths its run's change holds (contents are not
	// kept): undo compares it with the disk to find what changed since.
	After []tools.PathState
}

// Run is one agent run in a chat. Live is true while a process is running it: a live run
// found when the file is opened again belonged to a process that died.
type Run struct {
	ID         string       `json:"id"`
	ChatID     string       `json:"chatId"`
	Model      string       `json:"model,omitempty"`
	Think      string       `json:"think,omitempty"`
	Trigger    string       `json:"trigger,omitempty"` // events.Trigger*
	StartedAt  time.Time    `json:"startedAt"`
	FinishedAt time.Time    `json:"finishedAt,omitzero"`
	Phase      events.Phase `json:"phase"`
	StopReason string       `json:"stopReason,omitempty"` // events.Stop*, or StopInterrupted
	// Quit is set on a run stopped (events.StopAborted) because the app quit while it ran, not
	// by the user's Stop. A run kept before the field existed reads false: stopped by the user.
	Quit bool `json:"quit,omitempty"`
	Live bool `json:"live"`
	// State is the loop's own record of where it stands (opaque here), enough to resume a run
	// paused on an approval after a restart.
	State json.RawMessage `json:"state,omitempty"`
	// Notes are the sentences the run said in the chat besides its messages (why it stopped,
	// which tools it could not offer), oldest first, so that a reopened chat says them again.
	Notes []RunNote `json:"notes,omitempty"`
}

// RunNote is one sentence a run said in its chat that is no message.
type RunNote struct {
	// StopReason is set on the sentence that ended the run (run.finished's message):
	// events.StopLoop naming the repeated call, events.StopCompleted for an empty answer,
	// events.StopError for the error that failed it (Code is then the error event's code).
	StopReason string `json:"stopReason,omitempty"`
	// Code is the code of an error event the run said: one it said without ending (a tool that
	// could not be offered), or the one that failed it; or run.finished's (an empty answer).
	Code    string `json:"code,omitempty"`
	Message string `json:"message"`
	// Offer is set on the note of a summary the run offered (Message is its sentence); its
	// Choice is filled in when the user answers.
	Offer *SummaryOffer `json:"offer,omitempty"`
}

// SummaryOffer is a run's offer to summarize the older messages that no longer fit the
// model's context, and the user's answer.
type SummaryOffer struct {
	ID string `json:"id"`
	// Messages is how many messages no longer fit; Tokens the estimate of the whole prompt,
	// of NumCtx, the model's context.
	Messages int    `json:"messages"`
	Tokens   int    `json:"tokens"`
	NumCtx   int    `json:"numCtx"`
	Model    string `json:"model"`
	// Choice is the answer: SummaryChoice* ("" while it waits).
	Choice string `json:"choice,omitempty"`
}

// Settings are the user's preferences. A zero field means "the built-in default". The window
// gets and saves them as they are; a `ts` tag names the TypeScript union of a string field's
// values (internal/desktop/settingsts.go).
type Settings struct {
	OllamaURL    string `json:"ollamaUrl,omitempty"`
	DefaultModel string `json:"defaultModel,omitempty"`
	Workspace    string `json:"workspace,omitempty"`
	Think        string `json:"think,omitempty" ts:"ThinkLevel"` // off, on, low, medium, high
	ContextCap   int    `json:"contextCap,omitempty"`            // num_ctx ceiling, tokens
	// ToolApproval maps a tool name to auto, ask or deny; "*" is the fallback.
	ToolApproval map[string]string `json:"toolApproval,omitempty" ts:"ApprovalPolicy"`
	// AckFallbackMs is how long the bridge waits for the window's paint acknowledgement
	// before it sends the next batch anyway (0: the bridge's default). Settings saved before
	// it had this name hold it as "coalesceMs", which is still read.
	AckFallbackMs int `json:"ackFallbackMs,omitempty"`
	// FirstByteTimeoutSec bounds the wait for a model to start answering, loading included
	// (0: the client's default).
	FirstByteTimeoutSec int `json:"firstByteTimeoutSec,omitempty"`
	// ManualOllama turns off the server the window starts itself when nothing answers at a
	// local Ollama address ([Settings.StartsOllama]): the user runs Ollama.
	ManualOllama bool `json:"manualOllama,omitempty"`
	// OllamaBinary is the ollama program the window starts when none is on PATH or beside the
	// app (an absolute path; "" for none).
	OllamaBinary string `json:"ollamaBinary,omitempty"`
	// CheckpointMaxBytes is the largest file whose prior state a change keeps, so that it
	// can be undone (0: DefaultCheckpointMaxBytes).
	CheckpointMaxBytes int64 `json:"checkpointMaxBytes,omitempty"`
	// MaxAnswerBytes is the most one answer (its text, thinking and tool calls) may hold, in
	// bytes; past it the answer is cut and what came is kept (0: DefaultMaxAnswerBytes).
	MaxAnswerBytes int64 `json:"maxAnswerBytes,omitempty"`
	// AlwaysAllow maps a workspace folder to the tools the user allowed there for good:
	// their calls in that folder run without asking.
	AlwaysAllow map[string][]string `json:"alwaysAllow,omitempty"`
	// CommandRules maps a workspace folder to the command patterns the user allowed there
	// for good: a run_command call matching one runs without asking, with the rule's network
	// choice ([Settings.CommandRule]).
	CommandRules map[string][]CommandRule `json:"commandRules,omitempty"`
	// CommandDeny lists patterns of commands never run ([Settings.DeniedCommand]); nil is
	// [DefaultCommandDeny], an empty list denies nothing.
	CommandDeny []string `json:"commandDeny"`
	// UnconfinedCommands lets a command run without the sandbox where the sandbox cannot
	// start (it then sees the whole machine as the app does, and its changes are not kept
	// for undo). Off by default.
	UnconfinedCommands bool `json:"unconfinedCommands,omitempty"`
	// Instructions maps a workspace folder (its absolute path) to the user's instructions
	// for the model in that folder, added to the system prompt with the folder's AGENTS.md.
	Instructions map[string]string `json:"instructions,omitempty"`
	// KeepAliveMin is how long a model stays loaded after each request, in minutes (0:
	// DefaultKeepAlive; -1: until the server stops); sent as keep_alive on every request.
	KeepAliveMin int `json:"keepAliveMin,omitempty"`
	// LoopRepeats is how many times in a row the same tool call (or cycle of calls) may come
	// before the run stops as a loop (0: DefaultLoopRepeats).
	LoopRepeats int `json:"loopRepeats,omitempty"`
	// OlderTurns says what a run does when older messages no longer fit the model's context:
	// SummarizeAsk ("" too) offers the user a summary, SummarizeAlways makes one,
	// SummarizeNever leaves them out.
	OlderTurns string `json:"olderTurns,omitempty" ts:"OlderTurnsPolicy"`
	// Provider is the API the model is asked through: ProviderOllama ("" too) or
	// ProviderOpenAI, an OpenAI-compatible server at BaseURL.
	Provider string `json:"provider,omitempty" ts:"Provider"`
	// BaseURL is the OpenAI-compatible server's API address, e.g. http://gpu:8000/v1.
	BaseURL string `json:"baseUrl,omitempty"`
	// APIKeyEnv names the environment variable that holds the server's key (sent as a bearer
	// token, to either provider). The key itself is never stored.
	APIKeyEnv string `json:"apiKeyEnv,omitempty"`
	// MCPServers are MCP servers of the settings, a document of the mcpServers shape other
	// apps use; the files (global, workspace, --mcp-config) come on top of them.
	MCPServers json.RawMessage `json:"mcpServers,omitempty"`
	// Theme is the window's look: system (its light or dark), light or dark ("" : system).
	Theme string `json:"theme,omitempty" ts:"Theme"`
	// Sidebar is whether the window shows its list of chats: shown, hidden, or "" (shown
	// when the window is wide enough, SidebarAuto).
	Sidebar string `json:"sidebar,omitempty" ts:"SidebarChoice"`
	// RecentFolders are the folders new chats last took, newest first, at most
	// MaxRecentFolders (the folder menu lists them).
	RecentFolders []string `json:"recentFolders,omitempty"`
	// IgnoreTextToolCalls leaves an answer made of tool calls written as JSON text as text;
	// by default such calls are executed (marked recovered).
	IgnoreTextToolCalls bool `json:"ignoreTextToolCalls,omitempty"`
}

// The providers of [Settings.Provider]: the API a model is asked through.
const (
	// ProviderOllama: Ollama's native API (the default).
	ProviderOllama = "ollama"
	// ProviderOpenAI: a server that speaks the OpenAI-compatible chat API.
	ProviderOpenAI = "openai"
)

// UnmarshalJSON reads settings as saved, also by a version that named AckFallbackMs
// "coalesceMs".
func (s *Settings) UnmarshalJSON(b []byte) error {
	type saved Settings // without this method
	var v struct {
		saved
		CoalesceMs int `json:"coalesceMs"`
	}
	if err := json.Unmarshal(b, &v); err != nil {
		return err
	}
	*s = Settings(v.saved)
	if s.AckFallbackMs == 0 {
		s.AckFallbackMs = v.CoalesceMs
	}
	return nil
}
