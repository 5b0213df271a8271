package cli

import (
	"testing"
	"time"

	"prototyper/agentloop"
	"prototyper/events"
	"prototyper/store"
)

// `chats show` and the Markdown export say what became of a call in the state the window draws
// its card in: one rule (agentloop.RecordState), the same order.
func TestChatsSayWhatBecameOfACallAsTheWindowDrawsIt(t *testing.T) {
	done := time.Date(2025, 3, 1, 10, 0, 0, 0, time.UTC)
	live := store.Transcript{Runs: []store.Run{{ID: "live", Live: true}, {ID: "gone"}}}
	cases := []struct {
		name string
		r    store.ToolCallRecord
		want string
	}{
		{"a call that completed despite a stop is ok", store.ToolCallRecord{RunID: "gone", OK: true, Stopped: true, FinishedAt: done, DurationMs: 12}, "ok, 12 ms"},
		{"a call stopped before it started is not run", store.ToolCallRecord{RunID: "gone", NotRun: events.NotRunStopped, Stopped: true, FinishedAt: done}, "not run (stopped)"},
		{"a call answered by a reply is not run, not awaiting", store.ToolCallRecord{RunID: "gone", NotRun: events.NotRunReplied, AwaitingApproval: true}, "not run (replied)"},
		{"a call stopped while it ran", store.ToolCallRecord{RunID: "gone", Stopped: true, Output: "stopped", DurationMs: 5}, "stopped while it ran, 5 ms"},
		{"a pending call of a live run", store.ToolCallRecord{RunID: "live", Pending: true}, "running"},
		{"a pending call of a run gone", store.ToolCallRecord{RunID: "gone", Pending: true}, "interrupted (no result recorded)"},
		{"a call not started of a live run", store.ToolCallRecord{RunID: "live"}, "waiting to run"},
		{"a call not started of a run gone", store.ToolCallRecord{RunID: "gone"}, "interrupted (no result recorded)"},
		{"denied", store.ToolCallRecord{Approval: &store.Approval{Decision: store.DecisionDeny, By: "user", Reason: "no"}}, "denied by user: no"},
		{"a tool error", store.ToolCallRecord{RunID: "gone", Output: "boom", FinishedAt: done, DurationMs: 3}, "failed, 3 ms"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			if got := toolStatus(live, agentloop.Undone{}, c.r); got != c.want {
				t.Errorf("toolStatus = %q, want %q", got, c.want)
			}
		})
	}
}
