package agentloop

import (
	"errors"
	"fmt"
	"strings"
)

// Sentinel errors of the [Agent]'s methods.
var (
	// ErrNoModel is returned when a run has no model: none given, none in the chat or the
	// settings.
	ErrNoModel = errors.New("no model chosen: pick one in the settings or pass --model NAME (`prototyper models` lists them)")
	// ErrPromptBlocked is matched by a [*PromptBlockedError]: a UserPromptSubmit hook refused
	// the message; nothing was saved.
	ErrPromptBlocked = errors.New("message blocked")
	// ErrNoPendingApproval is returned by Decide for a tool call that does not wait for a
	// decision (unknown, already decided, or its run was answered otherwise).
	ErrNoPendingApproval = errors.New("no tool call waits for that decision")
	// ErrBadDecision is returned by Decide for a decision other than allow or deny.
	ErrBadDecision = errors.New("a decision is allow or deny")
	// ErrNoSummaryOffer is returned by AnswerSummary for a chat that waits for no answer to
	// a summary offer (none was made, it was answered, or the run was stopped).
	ErrNoSummaryOffer = errors.New("no offer to summarize older messages waits for an answer in this chat")
	// ErrSummaryOfferWaits is returned by RunOnce, without a prompt, for a chat paused on a
	// summary offer when RunOptions.Summarize does not answer it.
	ErrSummaryOfferWaits = errors.New("the chat waits for an answer to its offer to summarize older messages")
	// ErrBadSummaryChoice is returned by AnswerSummary for an answer other than summarize or
	// leave_out.
	ErrBadSummaryChoice = errors.New("the answer to a summary offer is summarize or leave_out")
	// ErrChatBusy is returned by RunOnce when the chat already has a live run in this process.
	ErrChatBusy = errors.New("the chat is busy with another run: wait for it or stop it first")
	// ErrNoTools is matched by a [*NoToolsError]: the run's model cannot call tools (the
	// server says so); nothing was stored.
	ErrNoTools = errors.New("the model cannot call tools")
	// ErrShutDown is returned after Shutdown.
	ErrShutDown = errors.New("the agent is shutting down")
	// ErrNothingToUndo: the chat has no change that stands (or not the one asked for).
	ErrNothingToUndo = errors.New("nothing to undo")
	// ErrNothingToRedo: no undo of the chat stands.
	ErrNothingToRedo = errors.New("nothing to redo")
	// ErrConflict is matched by a [*ConflictError].
	ErrConflict = errors.New("files changed since")
)

// PromptBlockedError says why a UserPromptSubmit hook refused a message.
type PromptBlockedError struct{ Reason string }

func (e *PromptBlockedError) Error() string {
	return fmt.Sprintf("the message was not sent: %s", e.Reason)
}

// Is matches ErrPromptBlocked.
func (e *PromptBlockedError) Is(target error) bool { return target == ErrPromptBlocked }

// NoToolsError names a model that cannot call tools.
type NoToolsError struct{ Model string }

func (e *NoToolsError) Error() string {
	return fmt.Sprintf("%s cannot call tools, and Prototyper works through them: pick a model that can (`prototyper models` shows which)", e.Model)
}

// Is matches ErrNoTools.
func (e *NoToolsError) Is(target error) bool { return target == ErrNoTools }

// Conflict is one path that changed since the change to be taken back wrote it.
type Conflict struct {
	Path string `json:"path"`
	// Workspace is the folder Path is in (the run's, which may no longer be the chat's).
	Workspace string `json:"workspace,omitempty"`
	Reason    string `json:"reason"`
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
