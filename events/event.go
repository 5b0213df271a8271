package events

import (
	"encoding/json"
	"time"
)

// Version is the envelope version, the "v" of every event.
const Version = 1

// Type names what an event says. The set is the design's; it only grows.
type Type string

// Event types of the design's envelope.
const (
	RunStarted           Type = "run.started"
	PhaseChanged         Type = "phase"
	MessageStarted       Type = "message.started"
	ThinkingDelta        Type = "thinking.delta"
	TextDelta            Type = "text.delta"
	ToolCall             Type = "tool.call"
	ToolApprovalRequest  Type = "tool.approval_requested"
	ToolApprovalResolved Type = "tool.approval_resolved"
	ToolProgress         Type = "tool.progress"
	ToolResult           Type = "tool.result"
	MessageCompleted     Type = "message.completed"
	ContextTruncated     Type = "context.truncated"
	Retry                Type = "retry"
	Error                Type = "error"
	RunFinished          Type = "run.finished"
	// ModelLoading: the server does not list the model as loaded, or a model request got no
	// answer within a second; the server is most likely loading it (payload: model).
	ModelLoading Type = "model.loading"
	// ModelLoaded: the answer after a model.loading started (payload: model, loadMs).
	ModelLoaded Type = "model.loaded"
	// PullProgress: a model being downloaded, of no chat (payload: model, status, digest,
	// total, completed); status "success" ends it, an error event with the model ends a
	// failed pull.
	PullProgress Type = "pull.progress"
	// CheckProgress: a model check run from the window, of no chat (payload: model, status
	// CheckRunning with name the case under way, or CheckCaseEnded with name and ok the case's
	// result; completed the cases ended, total the cases).
	CheckProgress Type = "check.progress"
	// PreviewReport: what the page in the Preview pane reported since it was last loaded,
	// of no chat (payload: report, a preview.Report).
	PreviewReport Type = "preview.report"
	// Checkpoint: the prior state of the paths a call is about to change was recorded with
	// its pending record, or a command's before its changes are applied (payload: toolCallId, paths; notUndoable lists the files too large
	// to keep, whose change cannot be taken back).
	Checkpoint Type = "checkpoint"
	// Undo: an undo put files back (payload: changeId, reverts — the runs or changes taken
	// back —, paths).
	Undo Type = "undo"
	// Redo: a redo took an undo back (payload: changeId, reverts — the undo —, paths).
	Redo Type = "redo"
	// ContextCut: the server evaluated fewer tokens than the prompt had, as when it cuts a
	// prompt longer than the context (payload: estimatedTokens, numCtx, message).
	ContextCut Type = "context.cut"
	// SummaryOffered: older messages no longer fit the model's context, and the run waits for
	// the user to answer whether the model summarizes them or they are left out (payload:
	// offerId, droppedMessages, estimatedTokens, numCtx, model, message: the offer's sentence).
	SummaryOffered Type = "context.summary_offered"
	// SummaryAnswered: the offer was answered (payload: offerId, choice: summarize, leave_out,
	// or none when it was closed unanswered).
	SummaryAnswered Type = "context.summary_answered"
	// ToolOutput: output of a running command (payload: toolCallId, stream — StreamStdout or
	// StreamStderr —, text: UTF-8, invalid bytes replaced; dropped: bytes the bridge left out
	// of text where it says so, for a window that could not keep up). The bridge merges the
	// queued output of a call and stream, and delivers it before the call's tool.result.
	ToolOutput Type = "tool.output"
	// ServerStarted: a development server started by start_server listens (of no chat;
	// payload: toolCallId, the call's and the server's id; update, a tools.ServerInfo).
	ServerStarted Type = "server.started"
	// ServerOutput: a development server's output after its start_server call returned (of
	// no chat; payload: toolCallId, stream, text).
	ServerOutput Type = "server.output"
	// ServerEnded: a development server ended (of no chat; payload: toolCallId, message: how).
	ServerEnded Type = "server.ended"
)

// Streams of a tool.output event.
const (
	StreamStdout = "stdout"
	StreamStderr = "stderr"
)

// IsDelta reports whether events of type t may merge with their neighbour of the same message.
func (t Type) IsDelta() bool { return t == ThinkingDelta || t == TextDelta }

// Phase is the run state of one chat (the design's run phases).
type Phase string

// Run phases.
const (
	PhaseIdle             Phase = "idle"
	PhaseSubmitted        Phase = "submitted"
	PhaseStreaming        Phase = "streaming"
	PhaseTools            Phase = "tools"
	PhaseContinuing       Phase = "continuing"
	PhaseAwaitingApproval Phase = "awaiting_approval"
	// PhaseAwaitingSummary: paused on the user's answer to a summary offer.
	PhaseAwaitingSummary Phase = "awaiting_summary"
)

// Busy reports whether something is happening in the chat (the Stop button shows).
func (p Phase) Busy() bool {
	return p == PhaseSubmitted || p == PhaseStreaming || p == PhaseTools || p == PhaseContinuing
}

// Tool-call states carried by tool.call events (the "state" field).
const (
	ToolStatePending          = "pending"
	ToolStateRunning          = "running"
	ToolStateAwaitingApproval = "awaiting_approval"
)

// Statuses of check.progress.
const (
	CheckRunning   = "running"
	CheckCaseEnded = "case"
)

// Stop reasons of run.finished, also kept in a stored run's stopReason.
const (
	StopCompleted        = "completed"
	StopMaxSteps         = "max_steps"
	StopAborted          = "aborted"
	StopError            = "error"
	StopAwaitingApproval = "awaiting_approval"
	StopLength           = "length"
	// StopLoop: the model repeated the same call (or cycle of calls) until the loop limit;
	// run.finished's message names the call.
	StopLoop = "loop"
	// StopAwaitingSummary: the run paused on a summary offer; answering it resumes the chat.
	StopAwaitingSummary = "awaiting_summary"
)

// Why a call did not run (tool.result's "notRun", also kept in the call's record): the call
// neither failed nor was denied, and the window says so in a neutral tone. The model reads the
// stand-in text of the output.
const (
	// NotRunReplied: the user sent a message instead of deciding on the call.
	NotRunReplied = "replied"
	// NotRunStopped: the user stopped the run before the call started.
	NotRunStopped = "stopped"
	// NotRunSkipped: the user sent a message while the call's batch ran.
	NotRunSkipped = "skipped"
	// NotRunRepeated: the loop guard refused a call repeating the run's latest ones; the
	// model was told the earlier result instead.
	NotRunRepeated = "repeated"
	// NotRunLoop: the loop guard stopped the run (stop reason loop) before the call ran.
	NotRunLoop = "loop"
	// NotRunCopied: a call the model wrote as text was copied from what it had just read (a
	// tool's result, a file named in the message): text read is data, never a call to run.
	NotRunCopied = "copied"
)

// Where a call came from (tool.call's and the record's "origin"): "" for a call the model
// made through the API's tool calls.
const (
	// OriginText: the model wrote the call as text in its answer, and the loop read it as a
	// call (also marked Recovered). It never runs unasked unless the user allowed its tool.
	OriginText = "text"
)

// Kinds of the system messages a chat shows (message.started's "kind", with role system).
const (
	// KindInstructions: the project instructions of the chat's first turn (name: their sources).
	KindInstructions = "instructions"
	// KindSummary: the model's summary of older turns left out to fit the context
	// (droppedMessages: how many it stands for).
	KindSummary = "summary"
)

// What started a run (run.started's "trigger"). A user's message injected into a busy run
// is announced by a message.started with role user and trigger steering.
const (
	// TriggerUser: the user sent a message to an idle chat.
	TriggerUser = "user"
	// TriggerApproval: the user decided the calls a paused run waited for.
	TriggerApproval = "approval"
	// TriggerSteering: a message sent while the run was busy, injected into that run at its
	// next safe point.
	TriggerSteering = "steering"
	// TriggerFollowUp: messages sent too late for the run they were sent during start a run of
	// their own.
	TriggerFollowUp = "follow_up"
	// TriggerSummary: the user answered the summary offer a paused run waited for.
	TriggerSummary = "summary"
)

// Usage is the token accounting of one message (message.completed) or of a whole run
// (run.finished).
type Usage struct {
	PromptTokens int     `json:"promptTokens"`
	EvalTokens   int     `json:"evalTokens"`
	EvalMs       int64   `json:"evalMs"`
	TokensPerSec float64 `json:"tokensPerSec"`
	// PromptMs is the server's time evaluating the prompt, and PromptTokensPerSec the prompt
	// tokens a second it took (omitted when the server does not say, as OpenAI-compatible
	// ones do not).
	PromptMs           int64   `json:"promptMs,omitempty"`
	PromptTokensPerSec float64 `json:"promptTokensPerSec,omitempty"`
	// FirstTokenMs is the wait from the request leaving to the answer's first text or
	// thinking (for an answer that is calls alone, to its end), the model's load left out;
	// on a run, its first answer's. Omitted when nothing arrived.
	FirstTokenMs int64 `json:"firstTokenMs,omitempty"`
	// NumCtx is the context window the request asked for (tokens).
	NumCtx int `json:"numCtx,omitempty"`
	// ContextTokens is how much of NumCtx the message took: its prompt (the server's count
	// when it evaluated the prompt whole, else the loop's estimate: a prompt the server's
	// cache served is counted short) and its answer. On a message only.
	ContextTokens int `json:"contextTokens,omitempty"`
}

// Event is one envelope. The payload's fields sit at the top level beside the envelope's; a
// field a type does not use is omitted from its JSON. Seq and At are set by the [Bridge] when
// the event is emitted.
type Event struct {
	V         int       `json:"v"`
	Seq       uint64    `json:"seq"`
	ChatID    string    `json:"chatId"`
	RunID     string    `json:"runId,omitempty"`
	MessageID string    `json:"messageId,omitempty"`
	Type      Type      `json:"type"`
	At        time.Time `json:"at"`

	// run.started, model.loading, model.loaded
	Model   string `json:"model,omitempty"`
	Think   string `json:"think,omitempty"`
	Trigger string `json:"trigger,omitempty"` // Trigger*; also on a steering message.started

	// phase
	Phase Phase `json:"phase,omitempty"`
	// Busy is Phase.Busy(), sent so that the window does not decide it again.
	Busy bool `json:"busy,omitempty"`

	// message.started
	Role string `json:"role,omitempty"` // store.RoleUser, store.RoleAssistant
	// Kind tells a system message.started apart: KindInstructions, KindSummary.
	Kind string `json:"kind,omitempty"`

	// thinking.delta, text.delta, tool.output
	Text string `json:"text,omitempty"`
	// tool.output
	Stream  string `json:"stream,omitempty"`  // StreamStdout, StreamStderr
	Dropped int64  `json:"dropped,omitempty"` // bytes of output left out of text (a marker line says where)

	// tool.*
	ToolCallID string          `json:"toolCallId,omitempty"`
	Name       string          `json:"name,omitempty"`
	Args       json.RawMessage `json:"args,omitempty"`
	State      string          `json:"state,omitempty"`    // ToolState*
	Decision   string          `json:"decision,omitempty"` // store.DecisionAllow, store.DecisionDeny
	By         string          `json:"by,omitempty"`       // store.ByUser, ByPolicy, ByHook
	Reason     string          `json:"reason,omitempty"`
	Update     any             `json:"update,omitempty"`
	OK         *bool           `json:"ok,omitempty"`
	Output     string          `json:"output,omitempty"`
	Details    any             `json:"details,omitempty"`
	DurationMs *int64          `json:"durationMs,omitempty"`
	// tool.approval_requested: the change the call would make (path, diff, bytes; for a
	// delete, what it removes)
	Preview any `json:"preview,omitempty"`
	// preview.report: the page's report (a preview.Report).
	Report any `json:"report,omitempty"`

	// checkpoint, undo, redo; tool.result: the paths of the call's checkpoint its run changed.
	// Created, Deleted (checkpoint, tool.result): those of Paths the run created, deleted
	// (store.PathChange.Effect: a checkpoint names only creations); the others it edited.
	Paths       []string `json:"paths,omitempty"`
	Created     []string `json:"created,omitempty"`
	Deleted     []string `json:"deleted,omitempty"`
	NotUndoable []string `json:"notUndoable,omitempty"`
	ChangeID    string   `json:"changeId,omitempty"` // also run.started: the change the run continues
	Reverts     []string `json:"reverts,omitempty"`
	// undo, redo: the state of every card of a call that changed files, and the line each
	// run's answer carries about its changes taken back (agentloop.UndoneOf), as they stand now.
	ToolStates map[string]string `json:"toolStates,omitempty"`
	UndoneRuns map[string]string `json:"undoneRuns,omitempty"`
	// Unchanged (tool.result): paths the call's checkpoint named that its run left as they
	// were before it (the call failed, or put back what it wrote): the run changed nothing there.
	Unchanged []string `json:"unchanged,omitempty"`

	// Recovered marks a tool.call or tool.result of a call the model wrote as text.
	Recovered bool `json:"recovered,omitempty"`
	// Origin is, on a tool.call and a tool.approval_requested, where the call came from
	// (Origin*; "" for a native call).
	Origin string `json:"origin,omitempty"`
	// NotRun is, on a tool.result, why the call did not run (NotRun*); "" for a call that ran,
	// failed or was denied.
	NotRun string `json:"notRun,omitempty"`
	// Stopped is, on a tool.result, true for a call that was running when the user stopped
	// its run: it ran, did not finish its work, and did not fail (its output says what the
	// tool or the run said of the stop). It never goes with NotRun or a true OK.
	Stopped bool `json:"stopped,omitempty"`

	// message.completed, run.finished
	DoneReason string `json:"doneReason,omitempty"`
	Usage      *Usage `json:"usage,omitempty"`
	// Empty: message.completed of an empty answer (agentloop.IsEmptyAnswer).
	Empty      bool   `json:"empty,omitempty"`
	StopReason string `json:"stopReason,omitempty"`

	// model.loaded: how long the model took to load (the wait for its first byte)
	LoadMs *int64 `json:"loadMs,omitempty"`

	// pull.progress
	Status    string `json:"status,omitempty"`
	Digest    string `json:"digest,omitempty"`
	Total     int64  `json:"total,omitempty"`
	Completed int64  `json:"completed,omitempty"`

	// context.truncated
	DroppedMessages int `json:"droppedMessages,omitempty"`
	EstimatedTokens int `json:"estimatedTokens,omitempty"`
	NumCtx          int `json:"numCtx,omitempty"`

	// context.summary_offered, context.summary_answered
	OfferID string `json:"offerId,omitempty"`
	Choice  string `json:"choice,omitempty"` // store.SummaryChoice*

	// retry
	Attempt int   `json:"attempt,omitempty"`
	DelayMs int64 `json:"delayMs,omitempty"`

	// error; run.finished: a sentence saying why the run stopped (stop reason loop, or an
	// empty answer: code agentloop.CodeEmptyAnswer)
	Code      string `json:"code,omitempty"`
	Message   string `json:"message,omitempty"`
	Retryable *bool  `json:"retryable,omitempty"`
}
