package events_test

import (
	"fmt"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"prototyper/events"
	"prototyper/events/eventstest"
)

// never is a fallback no test waits out: only an acknowledgement (or hiding, or closing) lets
// the next batch go.
const never = time.Hour

func call(chat, id, state string) events.Event {
	return events.Event{ChatID: chat, MessageID: chat + "-m", Type: events.ToolCall, ToolCallID: id, Name: "write_file", State: state}
}

func result(chat, id string) events.Event {
	ok := true
	return events.Event{ChatID: chat, MessageID: chat + "-m", Type: events.ToolResult, ToolCallID: id, OK: &ok}
}

func delta(chat, text string) events.Event {
	return events.Event{ChatID: chat, MessageID: chat + "-m", Type: events.TextDelta, Text: text}
}

func lifecycle(chat string, t events.Type) events.Event {
	return events.Event{ChatID: chat, MessageID: chat + "-m", Type: t}
}

// batchOf returns the index of the delivery holding the event of type typ for tool call id.
func batchOf(t *testing.T, ds []eventstest.Delivery, typ events.Type, id string) int {
	t.Helper()
	for i, d := range ds {
		for _, e := range d.Events {
			if e.Type == typ && e.ToolCallID == id {
				return i
			}
		}
	}
	t.Fatalf("no %s for %s was delivered", typ, id)
	return -1
}

func TestToolResultNeverSharesABatchWithItsCall(t *testing.T) {
	tests := []struct {
		name  string
		emits []events.Event
		calls []string // ids whose result must come in a later batch than their running call
	}{
		{"instant tool", []events.Event{
			lifecycle("c", events.MessageStarted), delta("c", "writing"),
			call("c", "t1", events.ToolStateRunning), result("c", "t1"),
			lifecycle("c", events.MessageCompleted), lifecycle("c", events.RunFinished),
		}, []string{"t1"}},
		{"pending then running", []events.Event{
			call("c", "t1", events.ToolStatePending), call("c", "t1", events.ToolStateRunning), result("c", "t1"),
		}, []string{"t1"}},
		{"approval then running", []events.Event{
			call("c", "t1", events.ToolStateAwaitingApproval),
			{ChatID: "c", Type: events.ToolApprovalResolved, ToolCallID: "t1", Decision: "allow", By: "user"},
			call("c", "t1", events.ToolStateRunning), result("c", "t1"),
		}, []string{"t1"}},
		{"five parallel calls", []events.Event{
			call("c", "t1", events.ToolStateRunning), call("c", "t2", events.ToolStateRunning),
			call("c", "t3", events.ToolStateRunning), call("c", "t4", events.ToolStateRunning),
			call("c", "t5", events.ToolStateRunning),
			result("c", "t3"), result("c", "t1"), result("c", "t5"), result("c", "t2"), result("c", "t4"),
		}, []string{"t1", "t2", "t3", "t4", "t5"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			rec := eventstest.NewRecorder()
			b := eventstest.NewBridge(t, rec, events.WithFallback(never))
			// a batch in flight holds the sender, so the events below all wait in the queue
			// before it cuts the next batch, however the goroutines run: as when a loop with
			// an instant tool emits faster than the window paints
			b.Emit(lifecycle("c", events.RunStarted))
			first := rec.Next(t)
			for _, e := range tt.emits {
				b.Emit(e)
			}
			rec.AutoAck(b, time.Millisecond)
			rec.Ack(b, first)
			rec.WaitForCount(t, 1+len(tt.emits))
			ds := rec.Deliveries()
			callBatches := map[int]bool{}
			for _, id := range tt.calls {
				c, r := batchOf(t, ds, events.ToolCall, id), batchOf(t, ds, events.ToolResult, id)
				for i := c; i < len(ds); i++ { // the running call is the last call of its id
					for _, e := range ds[i].Events {
						if e.Type == events.ToolCall && e.ToolCallID == id && e.State == events.ToolStateRunning {
							c = i
						}
					}
				}
				callBatches[c] = true
				if r <= c {
					t.Errorf("%s: result in batch %d, its running call in batch %d; want the result strictly later", id, r, c)
				}
				tm, ok := b.ToolCallTiming(id)
				if !ok {
					t.Fatalf("no timing recorded for %s", id)
				}
				if !tm.PaintedBeforeResult() {
					t.Errorf("%s: painted at %v, result sent at %v; want the paint first", id, tm.PaintedAt, tm.ResultSentAt)
				}
			}
			if len(tt.calls) > 1 && len(callBatches) != 1 {
				t.Errorf("the running calls of one message came in %d batches, want them together in one", len(callBatches))
			}
		})
	}
}

func TestToolResultWaitsUntilItsCallWasPaintedRunningOrTheFallbackPassed(t *testing.T) {
	const fallback = 40 * time.Millisecond
	tests := []struct {
		name          string
		ackRunning    bool // the acknowledgement of the call's batch lists the call
		fallback      time.Duration
		wantAfterWait time.Duration
	}{
		// The fallback must not pass before the ack: on a loaded machine under the race
		// detector 40 ms can, and the result would then go on the fallback, not the ack.
		{"ack lists the call: result goes at once", true, time.Minute, 0},
		{"ack without the call: result waits out the fallback", false, fallback, fallback},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			rec := eventstest.NewRecorder()
			b := eventstest.NewBridge(t, rec, events.WithFallback(tt.fallback))
			b.Emit(call("c", "t1", events.ToolStateRunning))
			callBatch := rec.Next(t)
			b.Emit(result("c", "t1"))
			b.Emit(lifecycle("c", events.RunFinished))
			s := b.Stats()
			// a loaded machine can let the fallback pass before this line: then nothing is
			// in flight any more, rightly
			if sent, _ := b.ToolCallTiming("t1"); (s.Queued != 2 || !s.InFlight) && time.Since(sent.RunningSentAt) < tt.fallback {
				t.Fatalf("before the ack: %+v, want the result queued behind the batch in flight", s)
			}
			running := callBatch.Running
			if !tt.ackRunning {
				running = nil // e.g. the window shows another chat
			}
			b.Painted(callBatch.Seq(), running)
			resultBatch := rec.Next(t)
			if resultBatch.Events[0].Type != events.ToolResult {
				t.Fatalf("next batch starts with %s, want the result", resultBatch.Events[0].Type)
			}
			// timed where the bridge sends, as the promise is: the sink's own clock reads a
			// batch late when its Deliver starts late, which shortens the gap after it
			tm, _ := b.ToolCallTiming("t1")
			if gap := tm.ResultSentAt.Sub(tm.RunningSentAt); gap < tt.wantAfterWait {
				t.Errorf("result sent %v after its call, want at least %v", gap, tt.wantAfterWait)
			}
			if tm.PaintedBeforeResult() != tt.ackRunning {
				t.Errorf("PaintedBeforeResult = %v, want %v (%+v)", tm.PaintedBeforeResult(), tt.ackRunning, tm)
			}
		})
	}
}

func TestDeltasArrivingWhileABatchIsInFlightMergeIntoOne(t *testing.T) {
	rec := eventstest.NewRecorder()
	b := eventstest.NewBridge(t, rec, events.WithFallback(never))
	b.Emit(lifecycle("c", events.MessageStarted))
	first := rec.Next(t)

	var want strings.Builder
	for i := range 10_000 {
		text := fmt.Sprintf("t%d ", i)
		want.WriteString(text)
		b.Emit(delta("c", text))
	}
	s := b.Stats()
	if s.Queued != 1 {
		t.Fatalf("queued = %d after 10,000 deltas, want exactly 1 merged delta", s.Queued)
	}
	if s.Merged != 9_999 {
		t.Errorf("merged = %d, want 9,999", s.Merged)
	}

	rec.Ack(b, first)
	d := rec.Next(t)
	if len(d.Events) != 1 || d.Events[0].Type != events.TextDelta {
		t.Fatalf("next batch = %d events, want the one merged delta", len(d.Events))
	}
	if d.Events[0].Text != want.String() {
		t.Errorf("merged text has %d bytes, want all %d in order", len(d.Events[0].Text), want.Len())
	}
	if d.Events[0].Seq != first.Seq()+1 {
		t.Errorf("merged delta seq = %d, want %d (the seq of its first part)", d.Events[0].Seq, first.Seq()+1)
	}
}

func TestDeltasNeverMergeAcrossALifecycleEventOrAnotherKind(t *testing.T) {
	rec := eventstest.NewRecorder()
	b := eventstest.NewBridge(t, rec, events.WithFallback(never))
	b.Emit(lifecycle("c", events.RunStarted))
	first := rec.Next(t)

	thinking := delta("c", "hmm")
	thinking.Type = events.ThinkingDelta
	other := delta("c", "x")
	other.MessageID = "c-m2"
	emits := []events.Event{
		thinking, thinking, delta("c", "a"), delta("c", "b"),
		call("c", "t1", events.ToolStateRunning),
		delta("c", "c"), delta("other-chat", "z"), delta("c", "d"), other,
	}
	for _, e := range emits {
		b.Emit(e)
	}
	rec.Ack(b, first)
	got := rec.Next(t).Events
	var summary []string
	for _, e := range got {
		summary = append(summary, fmt.Sprintf("%s/%s:%s", e.ChatID, e.Type, e.Text))
	}
	want := []string{
		"c/thinking.delta:hmmhmm", "c/text.delta:ab", "c/tool.call:",
		"c/text.delta:cd", "other-chat/text.delta:z", "c/text.delta:x",
	}
	if !slices.Equal(summary, want) {
		t.Errorf("batch =\n %q\nwant\n %q", summary, want)
	}
}

func TestLifecycleOrderIsPreservedWithConcurrentChats(t *testing.T) {
	const chats, steps = 6, 150
	rec := eventstest.NewRecorder()
	b := eventstest.NewBridge(t, rec, events.WithFallback(never))
	rec.AutoAck(b, 0)

	var wg sync.WaitGroup
	for c := range chats {
		wg.Go(func() {
			chat := fmt.Sprintf("chat%d", c)
			b.Emit(lifecycle(chat, events.RunStarted))
			for s := range steps {
				b.Emit(delta(chat, fmt.Sprintf("%d,", s)))
				b.Emit(delta(chat, fmt.Sprintf("%d;", s)))
				id := fmt.Sprintf("%s-t%d", chat, s)
				b.Emit(call(chat, id, events.ToolStateRunning))
				b.Emit(result(chat, id))
			}
			b.Emit(lifecycle(chat, events.RunFinished))
		})
	}
	wg.Wait()
	if err := b.Close(); err != nil {
		t.Fatalf("Close: %v", err)
	}

	var lastSeq uint64
	text := map[string]*strings.Builder{}
	lifecycles := map[string][]string{}
	for _, e := range rec.Events() {
		if e.Seq <= lastSeq {
			t.Fatalf("seq %d delivered after %d, want strictly increasing", e.Seq, lastSeq)
		}
		lastSeq = e.Seq
		if e.Type.IsDelta() {
			if text[e.ChatID] == nil {
				text[e.ChatID] = &strings.Builder{}
			}
			text[e.ChatID].WriteString(e.Text)
			continue
		}
		lifecycles[e.ChatID] = append(lifecycles[e.ChatID], string(e.Type)+" "+e.ToolCallID)
	}
	for c := range chats {
		chat := fmt.Sprintf("chat%d", c)
		want := []string{"run.started "}
		var wantText strings.Builder
		for s := range steps {
			id := fmt.Sprintf("%s-t%d", chat, s)
			want = append(want, "tool.call "+id, "tool.result "+id)
			fmt.Fprintf(&wantText, "%d,%d;", s, s)
		}
		want = append(want, "run.finished ")
		if !slices.Equal(lifecycles[chat], want) {
			t.Errorf("%s: %d lifecycle events delivered, want the %d emitted, in order", chat, len(lifecycles[chat]), len(want))
		}
		if text[chat] == nil || text[chat].String() != wantText.String() {
			t.Errorf("%s: delivered text differs from the emitted text", chat)
		}
	}
}

func TestAHiddenWindowIsNotWaitedFor(t *testing.T) {
	rec := eventstest.NewRecorder()
	b := eventstest.NewBridge(t, rec, events.WithFallback(never))
	b.SetVisible(false)
	emits := []events.Event{
		lifecycle("c", events.RunStarted), call("c", "t1", events.ToolStateRunning), result("c", "t1"),
		lifecycle("c", events.RunFinished),
	}
	for i, e := range emits {
		b.Emit(e)
		rec.WaitForCount(t, i+1) // never acknowledged, each still let through
	}
	ds := rec.Deliveries()
	if c, r := batchOf(t, ds, events.ToolCall, "t1"), batchOf(t, ds, events.ToolResult, "t1"); r <= c {
		t.Errorf("hidden: result in batch %d, call in batch %d; the result still goes in a later batch", r, c)
	}

	b.SetVisible(true)
	rec.Ack(b, ds[len(ds)-1]) // the window paints what it got while hidden
	b.Emit(lifecycle("c", events.RunStarted))
	rec.WaitForCount(t, len(emits)+1)
	b.Emit(lifecycle("c", events.RunFinished))
	if s := b.Stats(); s.Queued != 1 || !s.InFlight {
		t.Errorf("visible again: %+v, want the next batch held back for an acknowledgement", s)
	}
}

func TestASlowSinkNeverBlocksEmit(t *testing.T) {
	rec := eventstest.NewRecorder()
	unblock := rec.Block()
	t.Cleanup(unblock)
	b := eventstest.NewBridge(t, rec, events.WithFallback(time.Millisecond))

	emitted := make(chan struct{})
	go func() {
		defer close(emitted)
		for i := range 100_000 {
			b.Emit(delta("c", "x"))
			if i%1000 == 0 {
				b.Emit(lifecycle("c", events.PhaseChanged))
			}
		}
	}()
	select {
	case <-emitted:
	case <-time.After(eventstest.Wait):
		t.Fatal("Emit blocked behind a sink that does not return")
	}
	if s := b.Stats(); s.Queued > 250 {
		t.Errorf("queued = %d after 100,000 deltas and 100 lifecycle events, want memory bounded by merging", s.Queued)
	}
	unblock()
	if err := b.Close(); err != nil {
		t.Fatalf("Close: %v", err)
	}
	var n int
	for _, e := range rec.Events() {
		n += len(e.Text)
	}
	if n != 100_000 {
		t.Errorf("delivered %d bytes of text, want all 100,000", n)
	}
}

func TestCloseFlushesEverythingPending(t *testing.T) {
	rec := eventstest.NewRecorder()
	b, err := events.NewBridge(rec, events.WithFallback(never), events.WithLogFile(""))
	if err != nil {
		t.Fatal(err)
	}
	emits := []events.Event{
		lifecycle("c", events.RunStarted), delta("c", "a"), call("c", "t1", events.ToolStateRunning),
		result("c", "t1"), delta("c", "b"), lifecycle("c", events.RunFinished),
	}
	for _, e := range emits {
		b.Emit(e)
	}
	if err := b.Close(); err != nil {
		t.Fatalf("Close: %v", err)
	}
	got := rec.Events()
	if len(got) != len(emits) {
		t.Fatalf("delivered %d events after Close, want all %d", len(got), len(emits))
	}
	ds := rec.Deliveries()
	if c, r := batchOf(t, ds, events.ToolCall, "t1"), batchOf(t, ds, events.ToolResult, "t1"); r <= c {
		t.Errorf("on Close: result in batch %d, call in batch %d; want it later still", r, c)
	}

	b.Emit(lifecycle("c", events.RunStarted))
	if s := b.Stats(); s.AfterClose != 1 || len(rec.Events()) != len(emits) {
		t.Errorf("an event emitted after Close: %+v; want it counted and ignored", s)
	}
	if err := b.Close(); err != nil {
		t.Errorf("second Close: %v", err)
	}
}

func TestSeqIsStrictlyIncreasingAndStampsTheEnvelope(t *testing.T) {
	rec := eventstest.NewRecorder()
	b := eventstest.NewBridge(t, rec, events.WithFallback(never))
	rec.AutoAck(b, 0)
	before := time.Now()
	for range 50 {
		b.Emit(lifecycle("c", events.PhaseChanged))
	}
	got := rec.WaitForCount(t, 50)
	for i, e := range got {
		if e.Seq != uint64(i+1) {
			t.Fatalf("event %d has seq %d, want %d", i, e.Seq, i+1)
		}
		if e.V != events.Version || e.At.Before(before) {
			t.Fatalf("event %d: v=%d at=%v, want v=%d and the emit time", i, e.V, e.At, events.Version)
		}
	}
}

func TestAStaleAckDoesNotReleaseTheBatchInFlight(t *testing.T) {
	rec := eventstest.NewRecorder()
	b := eventstest.NewBridge(t, rec, events.WithFallback(never))
	b.Emit(lifecycle("c", events.RunStarted))
	first := rec.Next(t)
	rec.Ack(b, first)
	b.Emit(lifecycle("c", events.MessageStarted))
	second := rec.Next(t)
	b.Emit(lifecycle("c", events.MessageCompleted))

	rec.Ack(b, first) // late duplicate of the first acknowledgement
	if s := b.Stats(); !s.InFlight || s.Queued != 1 {
		t.Fatalf("after a stale ack: %+v, want the second batch still in flight", s)
	}
	rec.Ack(b, second)
	if d := rec.Next(t); d.Events[0].Type != events.MessageCompleted {
		t.Errorf("after the right ack got %s, want message.completed", d.Events[0].Type)
	}
}

func TestASinkThatPaintsOnDeliveryIsNeverWaitedFor(t *testing.T) {
	var mu sync.Mutex
	var batches [][]events.Event
	painting, painted := make(chan struct{}), make(chan struct{})
	sink := events.AckOnDelivery(events.SinkFunc(func(batch []events.Event) error {
		mu.Lock()
		batches = append(batches, batch)
		first := len(batches) == 1
		mu.Unlock()
		if first { // the loop goes on while the first batch is written, however the goroutines run
			close(painting)
			<-painted
		}
		return nil
	}))
	b := eventstest.NewBridge(t, sink, events.WithFallback(never))
	b.Emit(call("c", "t1", events.ToolStateRunning))
	<-painting
	b.Emit(result("c", "t1"))
	b.Emit(lifecycle("c", events.RunFinished))
	close(painted)
	if err := b.Close(); err != nil {
		t.Fatal(err)
	}
	mu.Lock()
	defer mu.Unlock()
	if len(batches) != 2 {
		t.Fatalf("batches = %d, want 2 (call | result, run.finished)", len(batches))
	}
	if tm, _ := b.ToolCallTiming("t1"); !tm.PaintedBeforeResult() {
		t.Errorf("timing %+v: want the write to count as the paint", tm)
	}
	if s := b.Stats(); s.Fallbacks != 0 || s.Acks != 2 {
		t.Errorf("stats %+v: want every batch acknowledged by its delivery, no fallback", s)
	}
}

func TestToolCallTimingsStayBoundedOverALongSession(t *testing.T) {
	b := eventstest.NewBridge(t, events.AckOnDelivery(events.SinkFunc(func([]events.Event) error { return nil })))
	const calls = 10_000
	for i := range calls {
		id := fmt.Sprintf("t%d", i)
		b.Emit(call("c", id, events.ToolStateRunning))
		b.Emit(result("c", id))
	}
	if err := b.Close(); err != nil {
		t.Fatal(err)
	}
	timings := b.ToolCallTimings()
	if len(timings) == 0 || len(timings) > 2*4096 {
		t.Fatalf("%d timings kept after %d calls, want the latest few thousand", len(timings), calls)
	}
	last := timings[len(timings)-1]
	if last.ToolCallID != fmt.Sprintf("t%d", calls-1) || !last.PaintedBeforeResult() || last.ResultDelay() < 0 {
		t.Errorf("latest timing = %+v, want the last call, painted before its result", last)
	}
	if _, ok := b.ToolCallTiming("t0"); ok {
		t.Error("the first call is still remembered; want old finished calls forgotten")
	}
}
