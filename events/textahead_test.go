package events_test

import (
	"testing"
	"time"

	"prototyper/events"
	"prototyper/events/eventstest"
)

func TestWithTextAheadTextGoesWhileABatchWithoutToolsIsInFlight(t *testing.T) {
	rec := eventstest.NewRecorder()
	b := eventstest.NewBridge(t, rec, events.WithFallback(never), events.WithTextAhead())
	b.Emit(lifecycle("c", events.RunStarted))
	first := rec.Next(t)
	b.Emit(delta("c", "a"))
	second := rec.Next(t) // not acknowledged: the first is still in flight
	if len(second.Events) != 1 || second.Events[0].Text != "a" {
		t.Fatalf("second batch = %+v, want the delta a", second.Events)
	}
	b.Emit(delta("c", "b"))
	b.Emit(delta("c", "c"))
	if s := b.Stats(); s.Queued != 1 || s.Merged != 1 {
		t.Fatalf("with two batches in flight: %+v, want b and c merged and waiting", s)
	}
	rec.Ack(b, first)
	third := rec.Next(t)
	if len(third.Events) != 1 || third.Events[0].Text != "bc" {
		t.Errorf("third batch = %+v, want the merged delta bc", third.Events)
	}
}

func TestWithTextAheadAToolEventNeverGoesAheadOfABatchInFlight(t *testing.T) {
	rec := eventstest.NewRecorder()
	b := eventstest.NewBridge(t, rec, events.WithFallback(never), events.WithTextAhead())
	b.Emit(lifecycle("c", events.RunStarted))
	first := rec.Next(t)
	b.Emit(delta("c", "a"))
	b.Emit(call("c", "t1", events.ToolStateRunning))
	b.Emit(delta("c", "b"))
	second := rec.Next(t)
	if len(second.Events) != 1 || second.Events[0].Type != events.TextDelta {
		t.Fatalf("batch sent ahead = %+v, want the delta before the call only", second.Events)
	}
	rec.Ack(b, first)
	acked := time.Now()
	rec.Ack(b, second)
	third := rec.Next(t)
	if third.Events[0].Type != events.ToolCall {
		t.Fatalf("third batch starts with %s, want the call", third.Events[0].Type)
	}
	if tm, _ := b.ToolCallTiming("t1"); tm.RunningSentAt.Before(acked) {
		t.Errorf("the call went %v before the batch ahead of it was acknowledged", acked.Sub(tm.RunningSentAt))
	}
}

func TestWithTextAheadTextWaitsBehindABatchWithAToolEvent(t *testing.T) {
	rec := eventstest.NewRecorder()
	b := eventstest.NewBridge(t, rec, events.WithFallback(never), events.WithTextAhead())
	b.Emit(call("c", "t1", events.ToolStateRunning))
	first := rec.Next(t)
	b.Emit(delta("c", "a"))
	b.Emit(result("c", "t1"))
	acked := time.Now()
	rec.Ack(b, first)
	second := rec.Next(t)
	if second.At.Before(acked) {
		t.Errorf("text went %v before the acknowledgement of the call's batch", acked.Sub(second.At))
	}
	if tm, _ := b.ToolCallTiming("t1"); !tm.PaintedBeforeResult() {
		t.Errorf("the result went before its call was painted running: %+v", tm)
	}
}
