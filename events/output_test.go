package events_test

import (
	"strings"
	"testing"

	"prototyper/events"
	"prototyper/events/eventstest"
)

func output(chat, id, stream, text string) events.Event {
	return events.Event{ChatID: chat, MessageID: chat + "-m", Type: events.ToolOutput, ToolCallID: id, Stream: stream, Text: text}
}

// A command printing far more than a slow window takes costs the bridge a head and a tail
// per call and stream, the middle counted; the two streams interleaved still merge apart;
// the output goes before the call's result.
func TestCommandOutputForASlowWindowMergesPerStreamAndKeepsHeadAndTail(t *testing.T) {
	rec := eventstest.NewRecorder()
	b := eventstest.NewBridge(t, rec, events.WithFallback(never))
	b.Emit(call("c", "t1", events.ToolStateRunning))
	first := rec.Next(t)

	line := strings.Repeat("x", 1023) + "\n"
	const lines = 100 << 10 // 100 MiB of stdout, interleaved with stderr
	for i := range lines {
		text := line
		if i == 0 {
			text = "FIRST" + line[5:]
		}
		if i == lines-1 {
			text = line[:len(line)-5] + "LAST\n"
		}
		b.Emit(output("c", "t1", events.StreamStdout, text))
		b.Emit(output("c", "t1", events.StreamStderr, "e\n"))
	}
	b.Emit(result("c", "t1"))
	if s := b.Stats(); s.Queued != 3 {
		t.Fatalf("queued = %d events, want 3: one output per stream and the result", s.Queued)
	}
	rec.Ack(b, first)
	var got []events.Event
	for len(got) < 3 {
		d := rec.Next(t)
		got = append(got, d.Events...)
		rec.Ack(b, d)
	}
	out, errs, res := got[0], got[1], got[2]
	if out.Stream != events.StreamStdout || errs.Stream != events.StreamStderr || res.Type != events.ToolResult {
		t.Fatalf("delivered %s/%s, %s/%s, %s; want stdout, stderr, then the result", out.Type, out.Stream, errs.Type, errs.Stream, res.Type)
	}
	if len(out.Text) > 80<<10 || !strings.HasPrefix(out.Text, "FIRST") || !strings.HasSuffix(out.Text, "LAST\n") {
		t.Errorf("stdout text: %d bytes, starts %q, ends %q; want at most 80 KiB, the head and the tail", len(out.Text), out.Text[:5], out.Text[len(out.Text)-5:])
	}
	kept := int64(len(out.Text) - len("\n[… 0 bytes of output not shown …]\n"))
	if out.Dropped == 0 || out.Dropped+kept < int64(lines*len(line))-16 || !strings.Contains(out.Text, "bytes of output not shown") {
		t.Errorf("dropped = %d with %d kept, want the rest of %d bytes counted and said", out.Dropped, kept, lines*len(line))
	}
	if errs.Dropped == 0 || len(errs.Text) > 80<<10 {
		t.Errorf("stderr: %d bytes, %d dropped; want it bounded too", len(errs.Text), errs.Dropped)
	}
}

// BenchmarkBridgeMergesCommandOutputForASlowWindow: a command's output, 4 KiB chunks on two
// streams, emitted while no batch is acknowledged: the cost per chunk of merging and cutting.
func BenchmarkBridgeMergesCommandOutputForASlowWindow(b *testing.B) {
	rec := eventstest.NewRecorder()
	br := eventstest.NewBridge(b, rec, events.WithFallback(never))
	br.Emit(call("c", "t1", events.ToolStateRunning))
	rec.Next(b)
	chunk := strings.Repeat("y", 4095) + "\n"
	b.SetBytes(int64(len(chunk)))
	b.ReportAllocs()
	for i := 0; b.Loop(); i++ {
		stream := events.StreamStdout
		if i%4 == 3 {
			stream = events.StreamStderr
		}
		br.Emit(output("c", "t1", stream, chunk))
	}
	if s := br.Stats(); s.Queued > 2 {
		b.Fatalf("%d events queued, want the output merged into one per stream", s.Queued)
	}
}
