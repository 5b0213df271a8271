package events_test

import (
	"bytes"
	"encoding/json"
	"errors"
	"strings"
	"testing"
	"time"

	"prototyper/events"
	"prototyper/events/eventstest"
)

func TestJSONLinesWritesOneEnvelopePerLineWithThePayloadBesideIt(t *testing.T) {
	var out bytes.Buffer
	b := eventstest.NewBridge(t, events.NewJSONLines(&out), events.WithFallback(never))
	b.Emit(events.Event{ChatID: "c", RunID: "r", Type: events.RunStarted, Model: "qwen3:0.6b", Trigger: "user"})
	b.Emit(call("c", "t1", events.ToolStateRunning))
	b.Emit(result("c", "t1")) // a sink that paints on delivery is never waited for
	b.Emit(delta("c", "<b>&</b>"))
	if err := b.Close(); err != nil {
		t.Fatal(err)
	}

	lines := strings.Split(strings.TrimSuffix(out.String(), "\n"), "\n")
	if len(lines) != 4 {
		t.Fatalf("got %d lines, want one per event:\n%s", len(lines), out.String())
	}
	var first map[string]any
	if err := json.Unmarshal([]byte(lines[0]), &first); err != nil {
		t.Fatalf("line 1 is not a JSON object: %v", err)
	}
	for key, want := range map[string]any{"v": 1.0, "seq": 1.0, "chatId": "c", "runId": "r", "type": "run.started", "model": "qwen3:0.6b", "trigger": "user"} {
		if first[key] != want {
			t.Errorf("line 1 %q = %v, want %v", key, first[key], want)
		}
	}
	if _, nested := first["payload"]; nested {
		t.Error("line 1 nests a payload object; the payload's fields belong at the top level")
	}
	if _, err := time.Parse(time.RFC3339Nano, first["at"].(string)); err != nil {
		t.Errorf("at = %v, want RFC3339Nano: %v", first["at"], err)
	}
	if !strings.Contains(lines[3], `"text":"<b>&</b>"`) {
		t.Errorf("line 4 = %s, want the text unescaped", lines[3])
	}
}

func TestADeliveryErrorIsReportedByClose(t *testing.T) {
	broken := errors.New("stdout closed")
	b, err := events.NewBridge(events.SinkFunc(func([]events.Event) error { return broken }),
		events.WithFallback(never), events.WithLogFile(""))
	if err != nil {
		t.Fatal(err)
	}
	b.Emit(lifecycle("c", events.RunStarted))
	b.Emit(lifecycle("c", events.RunFinished)) // not stuck behind the failed batch
	err = b.Close()
	if !errors.Is(err, events.ErrDelivery) || !errors.Is(err, broken) {
		t.Errorf("Close = %v, want ErrDelivery wrapping the sink's error", err)
	}
}
