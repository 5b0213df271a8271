package agentloop

import (
	"context"
	"encoding/json"
)

// Action is a hook's decision. Several hooks run in order; the first decision that is not
// Continue wins and the hooks after it are not asked.
type Action int

const (
	// Continue lets the prompt, call or result go on unchanged.
	Continue Action = iota
	// Block stops the prompt (UserPromptSubmit) or the call (PreToolUse) with a reason.
	Block
	// Rewrite replaces the prompt, the call's arguments, or the call's result.
	Rewrite
)

// Prompt is what a UserPromptSubmit hook sees. The hooks run before anything of the message
// is stored, so ChatID is "" for a message that starts a new chat.
type Prompt struct {
	ChatID string
	Text   string
}

// PromptDecision is a UserPromptSubmit hook's answer: Continue, Block with Reason, or
// Rewrite to Text.
type PromptDecision struct {
	Action Action
	Reason string
	Text   string
}

// ToolUse is what a PreToolUse or PostToolUse hook sees of a call.
type ToolUse struct {
	ChatID, RunID string
	CallID, Name  string
	Args          json.RawMessage
}

// ToolUseDecision is a PreToolUse hook's answer: Continue, Block with Reason (the model is
// told the reason), or Rewrite to Args (validated again).
type ToolUseDecision struct {
	Action Action
	Reason string
	Args   json.RawMessage
}

// ToolOutcome is a call's result as the model will read it.
type ToolOutcome struct {
	OK        bool
	Output    string
	Details   any
	Terminate bool
	// NotRun says why the call did not run (events.NotRun*): a stand-in, not a failure.
	NotRun string
	// Stopped: the call was running when the user stopped the run, and did not complete;
	// set by the run (a hook's value is not kept), not a failure.
	Stopped bool
}

// OutcomeDecision is a PostToolUse hook's answer: Continue keeps the result, Rewrite
// replaces it with Outcome.
type OutcomeDecision struct {
	Action  Action
	Outcome ToolOutcome
}

// UserPromptSubmitHook runs before a user's message is committed.
type UserPromptSubmitHook func(ctx context.Context, p Prompt) PromptDecision

// PreToolUseHook runs after a call's arguments are validated and before its approval.
type PreToolUseHook func(ctx context.Context, u ToolUse) ToolUseDecision

// PostToolUseHook runs after a call executed, before its result is committed.
type PostToolUseHook func(ctx context.Context, u ToolUse, o ToolOutcome) OutcomeDecision

// Hooks are the hooks of an [Agent], each list run in order.
type Hooks struct {
	UserPromptSubmit []UserPromptSubmitHook
	PreToolUse       []PreToolUseHook
	PostToolUse      []PostToolUseHook
}

func (h Hooks) prompt(ctx context.Context, p Prompt) PromptDecision {
	for _, hook := range h.UserPromptSubmit {
		if d := hook(ctx, p); d.Action != Continue {
			return d
		}
	}
	return PromptDecision{Action: Continue, Text: p.Text}
}

func (h Hooks) preToolUse(ctx context.Context, u ToolUse) ToolUseDecision {
	for _, hook := range h.PreToolUse {
		if d := hook(ctx, u); d.Action != Continue {
			return d
		}
	}
	return ToolUseDecision{Action: Continue}
}

func (h Hooks) postToolUse(ctx context.Context, u ToolUse, o ToolOutcome) ToolOutcome {
	for _, hook := range h.PostToolUse {
		if d := hook(ctx, u, o); d.Action != Continue {
			if d.Action == Rewrite {
				return d.Outcome
			}
			return o
		}
	}
	return o
}
