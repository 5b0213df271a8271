package agentloop

import (
	"context"
	"encoding/json"

	"prototyper/store"
	"prototyper/tools"
)

// Approval policies of a tool: auto runs it, ask waits for the user's decision, deny never
// runs it.
const (
	ApproveAuto = string(tools.ApprovalAuto)
	ApproveAsk  = string(tools.ApprovalAsk)
	ApproveDeny = string(tools.ApprovalDeny)
)

// Decisions on a call, as [Agent.Decide] takes them: the store's, under the names callers
// of the agent know them by.
const (
	DecisionAllow = store.DecisionAllow
	DecisionDeny  = store.DecisionDeny
)

// Who decided on a call: the store's.
const (
	ByUser   = store.ByUser
	ByPolicy = store.ByPolicy
	ByHook   = store.ByHook
)

// ParseApproval checks an --approve value.
func ParseApproval(s string) (string, error) {
	a, err := tools.ParseApproval(s)
	return string(a), err
}

// policyFor resolves the policy of a tool: the run's override (--approve), then the user's
// per-tool setting, then the "*" setting, then the tool's own default, then auto.
func policyFor(override string, settings map[string]string, def tools.Definition) string {
	if override != "" {
		return override
	}
	if p, ok := settings[def.Name]; ok && p != "" {
		return p
	}
	if p, ok := settings["*"]; ok && p != "" {
		return p
	}
	if def.DefaultApproval != "" {
		return string(def.DefaultApproval)
	}
	return ApproveAuto
}

// Policy is the policy a run without --approve applies to the tool of def, given the
// per-tool settings: what the settings panel shows.
func Policy(settings map[string]string, def tools.Definition) string {
	return policyFor("", settings, def)
}

// ApprovalRequest is a call waiting for the user's decision.
type ApprovalRequest struct {
	ChatID, RunID string
	CallID, Name  string
	Args          json.RawMessage
	// Preview is the change the call would make, for a tool that changes files.
	Preview *tools.Preview
	// Origin is where the call came from: events.OriginText for a call the model wrote as
	// text, which an approver says it asks about.
	Origin string
	// Question, when set, is what the approver asks instead of whether to run the call: a
	// call already running asks whether to go on (a command's change beyond undo).
	Question string
}

// CommandDecision is an approver's answer about a command: allow or deny, with the host's
// network or not, and a pattern to always allow in the workspace ("" for none).
type CommandDecision struct {
	Decision, Reason string
	Network          bool
	Pattern          string
}

// CommandApprover is an [Approver] that can also allow a run_command call with network, or
// for good by pattern (a terminal); a plain Approver's allow runs it without network.
type CommandApprover interface {
	ApproveCommand(ctx context.Context, req ApprovalRequest) (CommandDecision, error)
}

// Approver decides on ask calls synchronously (a terminal prompt). Without one, a run pauses
// on an ask call and waits for [Agent.Decide].
type Approver interface {
	Approve(ctx context.Context, req ApprovalRequest) (decision, reason string, err error)
}
