package agentloop

import (
	"prototyper/events"
	"prototyper/store"
)

// The states a tool call's card is drawn in. A live card moves pending → running → one of the
// ends (tool.call's state carries the first three, [events.ToolStatePending] and its peers);
// a card read from the store takes the state [RecordState] gives its record.
const (
	CardPending          = events.ToolStatePending
	CardRunning          = events.ToolStateRunning
	CardAwaitingApproval = events.ToolStateAwaitingApproval
	CardCompleted        = "completed"
	CardFailed           = "failed"
	CardDenied           = "denied"
	CardInterrupted      = "interrupted"
	CardNotRun           = "not_run"
	CardStopped          = "stopped"
)

// RecordState is the state of a stored call's card, from its record alone; ofLiveRun says
// whether the run that made the call is still live. It is the one rule for every reader (the
// window's opened chat, `chats show`, the Markdown export), in this order:
//
//   - denied: the user (or a rule) denied it;
//   - not_run: it did not run and did not fail (the user replied or stopped, the loop guard
//     refused it), whatever else the record says;
//   - awaiting_approval: it waits for the user's decision;
//   - running while its run is live, else interrupted: it started and has no result;
//   - completed, stopped or failed: it has a result (a call that completed despite a stop is
//     completed);
//   - neither started nor finished: pending (allowed, waiting its turn) while its run is live,
//     else interrupted.
func RecordState(r store.ToolCallRecord, ofLiveRun bool) string {
	switch {
	case r.Approval != nil && r.Approval.Decision == store.DecisionDeny:
		return CardDenied
	case r.NotRun != "":
		return CardNotRun
	case r.AwaitingApproval:
		return CardAwaitingApproval
	case r.Pending && ofLiveRun:
		return CardRunning
	case r.Pending:
		return CardInterrupted
	case !r.FinishedAt.IsZero() || r.Output != "" || r.OK:
		switch {
		case r.OK:
			return CardCompleted
		case r.Stopped:
			return CardStopped
		}
		return CardFailed
	case ofLiveRun:
		return CardPending
	}
	return CardInterrupted
}

// recordStates gives each record of an opened chat its card's state ([Undone.State]): a
// record is of the live run when the chat has one and the record names no other.
func recordStates(records []store.ToolCallRecord, liveRunID string, undone Undone) map[string]string {
	out := make(map[string]string, len(records))
	for _, r := range records {
		out[r.ID] = undone.State(r, liveRunID != "" && (r.RunID == "" || r.RunID == liveRunID))
	}
	return out
}
