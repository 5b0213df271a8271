package agentloop

import (
	"testing"
	"time"

	"prototyper/events"
	"prototyper/store"
)

// slowCompletion is a store whose disk takes a while to confirm a call's result.
type slowCompletion struct{ Store }

func (s slowCompletion) CompleteToolCall(chatID, id string, res store.ToolResult) (store.ToolCallRecord, error) {
	r, err := s.Store.CompleteToolCall(chatID, id, res)
	time.Sleep(30 * time.Millisecond)
	return r, err
}

// TestACallsCardAndItsRecordSayTheSameDuration: the duration a call's result carries is the
// one its record keeps, so a chat reopened says what the card said live, however long the
// record took to write.
func TestACallsCardAndItsRecordSayTheSameDuration(t *testing.T) {
	h := newHarness(t, harnessOptions{model: "scripted", approve: ApproveAuto, cfg: func(c *Config) {
		c.Store = slowCompletion{c.Store}
	}})
	out := h.runCompleted(t, "write hello.txt")
	res := ofType(h.rec.events(), events.ToolResult)[0]
	recs, err := h.db.ToolCalls(out.ChatID)
	if err != nil || len(recs) != 1 {
		t.Fatalf("tool records = %+v, %v", recs, err)
	}
	if res.DurationMs == nil || *res.DurationMs != recs[0].DurationMs {
		t.Fatalf("the result says %v ms, its record %d ms", res.DurationMs, recs[0].DurationMs)
	}
}
