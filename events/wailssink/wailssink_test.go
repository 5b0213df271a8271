package wailssink

import (
	"context"
	"testing"

	"prototyper/events"
)

func TestEachBatchIsOneAgentBatchEventCarryingTheWholeArray(t *testing.T) {
	type call struct {
		name string
		data []any
	}
	var calls []call
	s := New(context.Background())
	s.emit = func(_ context.Context, name string, data ...any) { calls = append(calls, call{name, data}) }

	batch := []events.Event{{Seq: 1, Type: events.RunStarted}, {Seq: 2, Type: events.TextDelta, Text: "hi"}}
	if err := s.Deliver(batch); err != nil {
		t.Fatalf("Deliver: %v", err)
	}
	if len(calls) != 1 {
		t.Fatalf("emits per batch = %d, want 1", len(calls))
	}
	if calls[0].name != "agent:batch" {
		t.Errorf("event name = %q, want agent:batch", calls[0].name)
	}
	if len(calls[0].data) != 1 {
		t.Fatalf("data arguments = %d, want the batch alone", len(calls[0].data))
	}
	got, ok := calls[0].data[0].([]events.Event)
	if !ok || len(got) != 2 || got[1].Text != "hi" {
		t.Errorf("data = %#v, want the batch", calls[0].data[0])
	}
}
