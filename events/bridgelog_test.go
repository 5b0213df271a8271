package events_test

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"slices"
	"testing"
	"time"

	"prototyper/events"
	"prototyper/events/eventstest"
)

// readBridgeLog parses a bridge log into its lines, failing on any line of another shape.
func readBridgeLog(t *testing.T, path string) (lines []any) {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatalf("open the bridge log: %v", err)
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		var kind struct{ Kind string }
		if err := json.Unmarshal(sc.Bytes(), &kind); err != nil {
			t.Fatalf("log line %q: %v", sc.Text(), err)
		}
		dec := json.NewDecoder(bytes.NewReader(sc.Bytes()))
		dec.DisallowUnknownFields()
		var line any
		switch kind.Kind {
		case events.LogKindBatch:
			var l events.LogBatch
			err, line = dec.Decode(&l), l
		case events.LogKindAck:
			var l events.LogAck
			err, line = dec.Decode(&l), l
		case events.LogKindKey:
			var l events.LogKey
			err, line = dec.Decode(&l), l
		default:
			t.Fatalf("log line %q: unknown kind", sc.Text())
		}
		if err != nil {
			t.Fatalf("log line %q: %v", sc.Text(), err)
		}
		lines = append(lines, line)
	}
	return lines
}

// sentTimes is when each batch of a bridge log was sent, in order.
func sentTimes(t *testing.T, path string) []time.Time {
	t.Helper()
	var out []time.Time
	for _, line := range readBridgeLog(t, path) {
		if b, ok := line.(events.LogBatch); ok {
			at, err := time.Parse(time.RFC3339Nano, b.At)
			if err != nil {
				t.Fatalf("batch time %q: %v", b.At, err)
			}
			out = append(out, at)
		}
	}
	return out
}

func TestTheBridgeLogProvesEveryCallWasPaintedRunningBeforeItsResult(t *testing.T) {
	tests := []struct {
		name string
		open func(t *testing.T, path string, sink events.Sink) *events.Bridge
	}{
		{"PROTOTYPER_BRIDGE_LOG", func(t *testing.T, path string, sink events.Sink) *events.Bridge {
			t.Setenv(events.LogEnv, path)
			return eventstest.NewBridge(t, sink, events.WithFallback(never))
		}},
		{"WithLogFile", func(t *testing.T, path string, sink events.Sink) *events.Bridge {
			return eventstest.NewBridge(t, sink, events.WithFallback(never), events.WithLogFile(path))
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			path := filepath.Join(t.TempDir(), "bridge.jsonl")
			if err := os.WriteFile(path, []byte(`{"kind":"ack","at":"2025-01-01T00:00:00Z","seq":0,"running":[]}`+"\n"), 0o644); err != nil {
				t.Fatal(err)
			}
			rec := eventstest.NewRecorder()
			b := tt.open(t, path, rec)
			b.Emit(lifecycle("c", events.RunStarted))
			first := rec.Next(t)
			for _, e := range []events.Event{
				call("c", "t1", events.ToolStateRunning), call("c", "t2", events.ToolStateRunning),
				result("c", "t1"), result("c", "t2"), lifecycle("c", events.RunFinished),
			} {
				b.Emit(e)
			}
			rec.Ack(b, first)
			rec.Ack(b, rec.Next(t))
			rec.Next(t)
			if err := b.Close(); err != nil {
				t.Fatal(err)
			}

			lines := readBridgeLog(t, path)
			if len(lines) < 3 {
				t.Fatalf("log has %d lines, want the earlier line kept and batches and acks appended", len(lines))
			}
			painted := map[string]bool{}
			var batches int
			for _, line := range lines[1:] {
				switch l := line.(type) {
				case events.LogAck:
					for _, id := range l.Running {
						painted[id] = true
					}
				case events.LogBatch:
					batches++
					for _, e := range l.Events {
						if e.Type == events.ToolResult && !painted[e.ToolCallID] {
							t.Errorf("batch %d sends the result of %s before an ack listed it running", batches, e.ToolCallID)
						}
					}
				}
			}
			if batches != len(rec.Deliveries()) {
				t.Errorf("log has %d batch lines, want one per delivery (%d)", batches, len(rec.Deliveries()))
			}
			want := events.LogBatch{Kind: "batch", Events: []events.LogEvent{
				{Seq: 2, Type: events.ToolCall, ToolCallID: "t1"}, {Seq: 3, Type: events.ToolCall, ToolCallID: "t2"},
			}}
			second, ok := lines[3].(events.LogBatch) // lines: old ack, batch 1, its ack, batch 2
			if !ok || !slices.Equal(second.Events, want.Events) {
				t.Errorf("second batch line = %+v, want the two calls %+v", lines[3], want.Events)
			}
		})
	}
}

func TestAnUnwritableBridgeLogFailsNewBridge(t *testing.T) {
	path := filepath.Join(t.TempDir(), "missing-dir", "bridge.jsonl")
	_, err := events.NewBridge(eventstest.NewRecorder(), events.WithLogFile(path))
	if !errors.Is(err, events.ErrBridgeLog) {
		t.Errorf("NewBridge = %v, want ErrBridgeLog", err)
	}
}

// The spacing is read from the bridge log: where the bridge sends a batch.
func TestASinkThatNeverAcksStillGetsEveryEventSpacedByTheFallback(t *testing.T) {
	const fallback = 30 * time.Millisecond
	rec := eventstest.NewRecorder() // acknowledges nothing
	log := filepath.Join(t.TempDir(), "bridge.log")
	b := eventstest.NewBridge(t, rec, events.WithFallback(fallback), events.WithLogFile(log))

	emits := []events.Event{
		lifecycle("c", events.RunStarted), call("c", "t1", events.ToolStateRunning), result("c", "t1"),
		lifecycle("c", events.RunFinished),
	}
	b.Emit(emits[0])
	rec.Next(t)
	for _, e := range emits[1:] {
		b.Emit(e)
	}
	rec.WaitForCount(t, len(emits))
	ds := rec.Deliveries()
	if len(ds) != 3 {
		t.Fatalf("batches = %d, want 3 (run.started | tool.call | tool.result, run.finished)", len(ds))
	}
	// the gaps are read where the bridge sends (its log), not where the sink receives: a
	// Deliver that starts late on a loaded machine shortens the gap after it
	sent := sentTimes(t, log)
	for i := 1; i < len(sent); i++ {
		if gap := sent[i].Sub(sent[i-1]); gap < fallback {
			t.Errorf("batch %d went %v after the previous one, want at least the fallback %v", i, gap, fallback)
		}
	}
	if s := b.Stats(); s.Fallbacks < 2 {
		t.Errorf("fallbacks = %d, want 2 or more", s.Fallbacks)
	}
}

// loggedBy returns the bridge log's lines after do, given a bridge that logs to a file, has
// run and closed.
func loggedBy(t *testing.T, do func(b *events.Bridge)) []any {
	t.Helper()
	path := filepath.Join(t.TempDir(), "bridge.jsonl")
	b, err := events.NewBridge(eventstest.NewRecorder(), events.WithLogFile(path))
	if err != nil {
		t.Fatal(err)
	}
	do(b)
	if err := b.Close(); err != nil {
		t.Fatal(err)
	}
	return readBridgeLog(t, path)
}

func TestTheBridgeLogNotesAKeyAtTheTimeTheWindowReceivedIt(t *testing.T) {
	received := time.Date(2026, 11, 27, 8, 0, 0, 123_000_000, time.UTC)
	before := time.Now()
	lines := loggedBy(t, func(b *events.Bridge) { b.KeyReceived("Enter", received) })
	if len(lines) != 1 {
		t.Fatalf("log = %+v, want one line", lines)
	}
	got := lines[0].(events.LogKey)
	noted, err := time.Parse(time.RFC3339Nano, got.Noted)
	if err != nil || noted.Before(before) || noted.After(time.Now()) {
		t.Errorf("noted = %q (%v), want the moment the Go side noted the key", got.Noted, err)
	}
	got.Noted = ""
	if want := (events.LogKey{Kind: events.LogKindKey, At: "2026-11-27T08:00:00.123Z", Key: "Enter"}); got != want {
		t.Errorf("log = %+v, want %+v", got, want)
	}
}

func TestTheBridgeLogNotesThePageTimesOfAnAcknowledgedBatch(t *testing.T) {
	received := time.Date(2026, 11, 27, 8, 0, 0, 123_456_000, time.UTC)
	painted := received.Add(9 * time.Millisecond)
	lines := loggedBy(t, func(b *events.Bridge) {
		b.PaintedAt(7, []string{"t1"}, events.PageTimes{Received: received, Painted: painted})
		b.Painted(8, nil) // a window that gives no times: none written
	})
	if len(lines) != 2 {
		t.Fatalf("log = %+v, want two acknowledgements", lines)
	}
	first, second := lines[0].(events.LogAck), lines[1].(events.LogAck)
	if first.Seq != 7 || first.Received != "2026-11-27T08:00:00.123456Z" || first.Painted != "2026-11-27T08:00:00.132456Z" {
		t.Errorf("first ack = %+v, want seq 7 with the page's times", first)
	}
	if second.Seq != 8 || second.Received != "" || second.Painted != "" || second.Running == nil {
		t.Errorf("second ack = %+v, want seq 8 with no page times and an empty running list", second)
	}
}
