package agentloop

import (
	"errors"
	"fmt"
	"strings"
)

// The sentinel errors of the [Agent]'s methods stand by the method that returns them, or
// beside the typed error that matches them.

// ErrNoModel is returned when a run has no model: none given, none in the chat or the
// settings.
var ErrNoModel = errors.New("no model chosen: pick one in the model menu, or pass --model NAME (`prototyper models` lists them)")

// ErrChatBusy is returned by RunOnce (and Undo) when the chat already has a live run in this
// process.
var ErrChatBusy = errors.New("the chat is busy with another run: wait for it or stop it first")

// ErrQueueFull is returned (wrapped, with the sentence to show) by Send and SendImages for a
// message a busy chat's queue has no room for: [MaxQueued] messages wait already, or their images
// with its own would pass [MaxQueuedImageBytes]. Nothing was queued.
var ErrQueueFull = errors.New("the chat's queue is full")

// ErrShutDown is returned after Shutdown.
var ErrShutDown = errors.New("the agent is shutting down")

// ErrPromptBlocked is matched by a [*PromptBlockedError]: a UserPromptSubmit hook refused the
// message; nothing was saved.
var ErrPromptBlocked = errors.New("message blocked")

// ErrNoTools is matched by a [*NoToolsError]: the run's model cannot call tools (the server
// says so); nothing was stored.
var ErrNoTools = errors.New("the model cannot call tools")

// PromptBlockedError says why a UserPromptSubmit hook refused a message.
type PromptBlockedError struct{ Reason string }

func (e *PromptBlockedError) Error() string { return "the message was not sent: " + e.Reason }

// Is matches ErrPromptBlocked.
func (e *PromptBlockedError) Is(target error) bool { return target == ErrPromptBlocked }

// NoToolsError names a model that cannot call tools.
type NoToolsError struct{ Model string }

func (e *NoToolsError) Error() string {
	return e.Model + " cannot call tools, and Prototyper works through them: pick a model that can (the model menu marks them “tools”; `prototyper models` lists them)"
}

// Is matches ErrNoTools.
func (e *NoToolsError) Is(target error) bool { return target == ErrNoTools }

// Conflict is one path that changed since the change to be taken back wrote it.
type Conflict struct {
	Path string `json:"path"`
	// Workspace is the folder Path is in (the run's, which may no longer be the chat's).
	Workspace string `json:"workspace,omitempty"`
	Reason    string `json:"reason"`
	// NotKept: its earlier state was too large to keep (Bytes), so it cannot be put back at
	// all; an undo forced (or keeping) leaves it as it is.
	NotKept bool  `json:"notKept,omitempty"`
	Bytes   int64 `json:"bytes,omitempty"`
}

// ConflictError lists the paths that stopped an undo or a redo; nothing was written.
type ConflictError struct {
	Conflicts []Conflict
	Redo      bool
}

func (e *ConflictError) Error() string {
	parts := make([]string, len(e.Conflicts))
	for i, c := range e.Conflicts {
		parts[i] = c.Path + " " + c.Reason
	}
	what := "undone"
	if e.Redo {
		what = "redone"
	}
	return fmt.Sprintf("nothing was %s: %s; keep your version beside the restored one, or overwrite it", what, strings.Join(parts, "; "))
}

// Is matches ErrConflict.
func (e *ConflictError) Is(target error) bool { return target == ErrConflict }

// The errors of taking back a change ([Agent.Undo], [Agent.Redo]).
var (
	// ErrNothingToUndo: the chat has no change that stands (or not the one asked for).
	ErrNothingToUndo = errors.New("nothing to undo")
	// ErrNothingToRedo: no undo of the chat stands.
	ErrNothingToRedo = errors.New("nothing to redo")
	// ErrConflict is matched by a [*ConflictError]: a path changed since the change to be
	// taken back wrote it.
	ErrConflict = errors.New("files changed since")
	// ErrNothingReverted: a write of the undo or redo failed, and what it had written was
	// put back as it was; the error it wraps says which write.
	ErrNothingReverted = errors.New("nothing was changed")
)

// The errors of answering a tool call that waits for approval ([Agent.Decide]).
var (
	// ErrNoPendingApproval is returned by Decide for a tool call that does not wait for a
	// decision (unknown, already decided, or its run was answered otherwise).
	ErrNoPendingApproval = errors.New("no tool call waits for that decision")
	// ErrBadDecision is returned by Decide for a decision other than allow or deny.
	ErrBadDecision = errors.New("a decision is allow or deny")
)
