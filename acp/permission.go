package acp

import (
	"context"
	"fmt"
	"strings"

	sdk "github.com/coder/acp-go-sdk"

	"prototyper/agentloop"
	"prototyper/events"
	"prototyper/store"
	"prototyper/tools"
)

// The options of a permission request.
const (
	optionAllow  = "allow"
	optionAlways = "always"
	optionReject = "reject"
)

// answer asks the editor, one question at a time and in order, about each call waiting for
// approval and each summary offer of the session, and gives the answers to the agent as the
// window does; in Auto-approve it allows a call itself, unless the model wrote it as text. A
// question the editor cancels (or a cancelled prompt) stops the run.
func (sess *session) answer() {
	for e := range sess.asks {
		t := sess.current()
		if t == nil {
			continue // no prompt waits: the chat stays paused, as in the window
		}
		var err error
		switch {
		case e.Type == events.ToolApprovalRequest && sess.currentMode() == ModeAuto && e.Origin != events.OriginText:
			err = sess.s.agent.Decide(e.ToolCallID, agentloop.DecisionAllow, "")
		case e.Type == events.SummaryOffered:
			err = sess.answerOffer(t.ctx, e)
		default:
			err = sess.answerApproval(t.ctx, e)
		}
		if err != nil {
			if t.ctx.Err() == nil { // a cancelled prompt withdrew it: nothing to say
				sess.s.cfg.Log.Warn("a question went unanswered; the run is stopped", "chat", sess.chatID, "err", err)
			}
			_ = sess.s.agent.Stop(sess.chatID)
			t.finish(events.StopAborted)
		}
	}
}

// errCancelled is a question the editor answered cancelled.
var errCancelled = fmt.Errorf("the editor cancelled the question")

// answerApproval asks whether the call of e may run, with the preview the window shows.
func (sess *session) answerApproval(ctx context.Context, e events.Event) error {
	v := sess.call(e.ToolCallID, e.Name, e.Args)
	sess.mu.Lock()
	name, args := v.name, v.args
	sess.mu.Unlock()
	if name == "" {
		name = e.Name
	}
	pv, _ := e.Preview.(*tools.Preview)
	ws := sess.workspace()
	always := "Always allow " + name + " in this folder"
	pattern := ""
	if name == tools.RunCommand {
		always = ""
		if pv != nil && pv.Command != nil && pv.Command.Pattern != "" {
			pattern = pv.Command.Pattern
			always = fmt.Sprintf("Always allow commands starting with %q in this folder", pattern)
		}
	}
	options := []sdk.PermissionOption{{Kind: sdk.PermissionOptionKindAllowOnce, Name: "Allow", OptionId: optionAllow}}
	if always != "" {
		options = append(options, sdk.PermissionOption{Kind: sdk.PermissionOptionKindAllowAlways, Name: always, OptionId: optionAlways})
	}
	options = append(options, sdk.PermissionOption{Kind: sdk.PermissionOptionKindRejectOnce, Name: "Reject", OptionId: optionReject})
	req := sdk.RequestPermissionRequest{
		SessionId: sdk.SessionId(sess.chatID),
		ToolCall: sdk.ToolCallUpdate{
			ToolCallId: sdk.ToolCallId(e.ToolCallID),
			Title:      sdk.Ptr(title(name, args)),
			Kind:       sdk.Ptr(kindOf(name)),
			Status:     sdk.Ptr(sdk.ToolCallStatusPending),
			RawInput:   rawInput(args),
			Locations:  locations(ws, args),
			Content:    previewContent(ws, pv, e.Origin),
		},
		Options: options,
	}
	resp, err := sess.s.peer().RequestPermission(ctx, req)
	if err != nil {
		return err
	}
	if resp.Outcome.Selected == nil {
		return errCancelled
	}
	agent := sess.s.agent
	switch string(resp.Outcome.Selected.OptionId) {
	case optionAllow:
		return agent.Decide(e.ToolCallID, agentloop.DecisionAllow, "")
	case optionAlways:
		if name == tools.RunCommand {
			return agent.AllowCommand(e.ToolCallID, false, pattern)
		}
		return agent.AllowAlways(e.ToolCallID)
	default:
		return agent.Decide(e.ToolCallID, agentloop.DecisionDeny, "")
	}
}

// previewContent is what the window's approval card shows: the diff of a file change, what a
// delete removes, the command line and its folder, or why the call would fail.
func previewContent(workspace string, pv *tools.Preview, origin string) []sdk.ToolCallContent {
	var out []sdk.ToolCallContent
	text := func(s string) { out = append(out, sdk.ToolContent(sdk.TextBlock(s))) }
	if origin == events.OriginText {
		text("The model wrote this call as text in its answer.")
	}
	if pv == nil {
		return out
	}
	switch {
	case pv.Fails != "":
		text("This call would fail: " + pv.Fails)
	case pv.Command != nil:
		text(fenced(tools.Visible(pv.Command.Command)) + "\nin " + tools.Visible(pv.Command.Cwd))
	case len(pv.Removes) > 0:
		var b strings.Builder
		b.WriteString("Deletes:\n")
		for _, r := range pv.Removes {
			fmt.Fprintf(&b, "- %s (%s)\n", tools.Visible(r.Path), r.Kind)
		}
		text(b.String())
	case pv.Diff != "":
		out = append(out, diffContent(absPath(workspace, pv.Path), pv.Diff)...)
	}
	if len(pv.NotUndoable) > 0 {
		text("Cannot be undone (too large to keep): " + tools.Visible(strings.Join(pv.NotUndoable, ", ")))
	}
	return out
}

// The options of a summary offer.
const (
	optionSummarize = "summarize"
	optionLeaveOut  = "leave_out"
)

// answerOffer asks whether the model summarizes the older messages that no longer fit, as
// the window's offer does.
func (sess *session) answerOffer(ctx context.Context, e events.Event) error {
	req := sdk.RequestPermissionRequest{
		SessionId: sdk.SessionId(sess.chatID),
		ToolCall: sdk.ToolCallUpdate{
			ToolCallId: sdk.ToolCallId("summary-" + e.OfferID),
			Title:      sdk.Ptr("Older messages no longer fit the model's context"),
			Kind:       sdk.Ptr(sdk.ToolKindThink),
			Status:     sdk.Ptr(sdk.ToolCallStatusPending),
			Content:    []sdk.ToolCallContent{sdk.ToolContent(sdk.TextBlock(e.Message))},
		},
		Options: []sdk.PermissionOption{
			{Kind: sdk.PermissionOptionKindAllowOnce, Name: "Summarize them", OptionId: optionSummarize},
			{Kind: sdk.PermissionOptionKindRejectOnce, Name: "Leave them out", OptionId: optionLeaveOut},
		},
	}
	resp, err := sess.s.peer().RequestPermission(ctx, req)
	if err != nil {
		return err
	}
	if resp.Outcome.Selected == nil {
		return errCancelled
	}
	choice := store.SummaryChoiceSummarize
	if resp.Outcome.Selected.OptionId == optionLeaveOut {
		choice = store.SummaryChoiceLeaveOut
	}
	return sess.s.agent.AnswerSummary(sess.chatID, choice)
}
