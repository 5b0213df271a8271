package desktop

import (
	"context"
	"time"

	"prototyper/agentloop"
	"prototyper/events"
)

// The window's answers to a run (stop, approvals, summary offers), undo and review, and the
// window's acknowledgements of what it painted: each is the agent's or the bridge's own, named
// here so that app.go binds the session alone.

// ListChats returns the chats, newest first.
func (d *Desktop) ListChats() ([]agentloop.ChatSummary, error) { return d.agent.Summaries() }

// StopChat stops the chat's run; its partial answer stays.
func (d *Desktop) StopChat(chatID string) error { return d.agent.Stop(chatID) }

// Decide answers a tool call that waits for approval: allow or deny, with a reason.
func (d *Desktop) Decide(toolCallID, decision, reason string) error {
	return d.agent.Decide(toolCallID, decision, reason)
}

// AnswerSummaryOffer answers the offer to summarize a chat's older messages: summarize or
// leave_out.
func (d *Desktop) AnswerSummaryOffer(chatID, choice string) error {
	return d.agent.AnswerSummary(chatID, choice)
}

// AllowAlways allows a waiting call and every later call of its tool in the chat's workspace.
func (d *Desktop) AllowAlways(toolCallID string) error { return d.agent.AllowAlways(toolCallID) }

// AllowCommand allows a waiting run_command call, with the host's network when network; a
// pattern not empty also always allows the commands starting with it in the chat's workspace.
func (d *Desktop) AllowCommand(toolCallID string, network bool, pattern string) error {
	return d.agent.AllowCommand(toolCallID, network, pattern)
}

// Undo puts back files the chat's runs changed (see [agentloop.Agent.Undo]).
func (d *Desktop) Undo(ctx context.Context, chatID string, opts agentloop.UndoOptions) (agentloop.UndoResult, error) {
	return d.agent.Undo(ctx, chatID, opts)
}

// Redo takes back the chat's last undo.
func (d *Desktop) Redo(ctx context.Context, chatID string, opts agentloop.UndoOptions) (agentloop.UndoResult, error) {
	return d.agent.Redo(ctx, chatID, opts)
}

// ChatChanges is the review of a chat: every file its runs created, changed or deleted.
func (d *Desktop) ChatChanges(ctx context.Context, chatID string) ([]agentloop.FileChange, error) {
	return d.agent.ChatChanges(ctx, chatID)
}

// Painted acknowledges the batch ending at seq: the window applied it and painted a frame, with
// the tool cards of runningToolCallIDs in the DOM as running. receivedAtUnixMs and
// paintedAtUnixMs are the page's times of the batch (milliseconds since the Unix epoch, 0 for
// none), noted on the bridge log.
func (d *Desktop) Painted(seq uint64, runningToolCallIDs []string, receivedAtUnixMs, paintedAtUnixMs float64) {
	d.bridge.PaintedAt(seq, runningToolCallIDs, events.PageTimes{Received: unixMs(receivedAtUnixMs), Painted: unixMs(paintedAtUnixMs)})
}

// unixMs is the time of a page's clock reading in milliseconds since the Unix epoch; zero for
// none (0 or less).
func unixMs(ms float64) time.Time {
	if ms <= 0 {
		return time.Time{}
	}
	return time.UnixMicro(int64(ms * 1000))
}

// KeyReceived notes on the bridge log that the window received key at atUnixMs (the key
// event's time, milliseconds since the Unix epoch).
func (d *Desktop) KeyReceived(key string, atUnixMs float64) {
	d.bridge.KeyReceived(key, unixMs(atUnixMs))
}

// SetVisible tells the bridge whether the window can paint; hidden, it waits for no ack.
func (d *Desktop) SetVisible(visible bool) { d.bridge.SetVisible(visible) }
