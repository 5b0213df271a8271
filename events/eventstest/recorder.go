// Package eventstest helps tests that watch the agent through an [events.Bridge]: a
// [Recorder] sink that keeps every batch and acknowledges only when the test says so (or
// automatically, like a window painting at a given pace), and [NewBridge], which starts a
// bridge that closes itself when the test ends.
//
//	rec := eventstest.NewRecorder()
//	b := eventstest.NewBridge(t, rec, events.WithFallback(time.Hour))
//	b.Emit(events.Event{ChatID: "c", Type: events.RunStarted})
//	batch := rec.Next(t)  // the first batch, as the window would get it
//	rec.Ack(b, batch)     // painted: the next batch may go
package eventstest

import (
	"slices"
	"sync"
	"testing"
	"time"

	"prototyper/events"
)

// Wait is how long Recorder's waiting helpers wait before failing the test. It only guards
// against a hang; no test relies on it for timing.
const Wait = 10 * time.Second

// NewBridge starts a bridge delivering to sink with opts, failing tb if it cannot start, and
// closes it when the test ends.
func NewBridge(tb testing.TB, sink events.Sink, opts ...events.Option) *events.Bridge {
	tb.Helper()
	b, err := events.NewBridge(sink, opts...)
	if err != nil {
		tb.Fatalf("NewBridge: %v", err)
	}
	tb.Cleanup(func() { _ = b.Close() })
	return b
}

// Delivery is one batch as the recorder received it.
type Delivery struct {
	Events []events.Event
	At     time.Time // when Deliver was called
	// Running is the tool calls a window would show running after applying this batch.
	Running []string
}

// Seq is the seq of the batch's last event: what its acknowledgement carries.
func (d Delivery) Seq() uint64 { return d.Events[len(d.Events)-1].Seq }

// Recorder is a [events.Sink] that records every batch. It acknowledges nothing by itself
// unless [Recorder.AutoAck] was called. It is safe for concurrent use.
type Recorder struct {
	mu         sync.Mutex
	changed    chan struct{} // closed and replaced at every delivery
	deliveries []Delivery
	read       int             // deliveries already returned by Next
	running    map[string]bool // cards shown running, as a window's store would hold them
	ackBridge  *events.Bridge
	ackAfter   time.Duration
	block      chan struct{} // while non-nil, Deliver waits for it to close
}

// NewRecorder returns an empty recorder.
func NewRecorder() *Recorder {
	return &Recorder{changed: make(chan struct{}), running: make(map[string]bool)}
}

// Deliver records batch. While [Recorder.Block] holds, it waits first, like a hung window.
func (r *Recorder) Deliver(batch []events.Event) error {
	r.mu.Lock()
	block := r.block
	r.mu.Unlock()
	if block != nil {
		<-block
	}
	at := time.Now()
	r.mu.Lock()
	for _, e := range batch {
		switch e.Type {
		case events.ToolCall:
			if e.State == events.ToolStateRunning {
				r.running[e.ToolCallID] = true
			} else {
				delete(r.running, e.ToolCallID)
			}
		case events.ToolResult:
			delete(r.running, e.ToolCallID)
		}
	}
	d := Delivery{Events: batch, At: at, Running: r.runningLocked()}
	r.deliveries = append(r.deliveries, d)
	close(r.changed)
	r.changed = make(chan struct{})
	b, after := r.ackBridge, r.ackAfter
	r.mu.Unlock()
	if b != nil {
		if after <= 0 {
			b.Painted(d.Seq(), d.Running)
		} else {
			time.AfterFunc(after, func() { b.Painted(d.Seq(), d.Running) })
		}
	}
	return nil
}

func (r *Recorder) runningLocked() []string {
	out := make([]string, 0, len(r.running))
	for id := range r.running {
		out = append(out, id)
	}
	slices.Sort(out)
	return out
}

// AutoAck makes the recorder acknowledge every later batch to b after the given delay, as a
// window painting at that pace would (0: at once, from inside Deliver).
func (r *Recorder) AutoAck(b *events.Bridge, after time.Duration) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.ackBridge, r.ackAfter = b, after
}

// Ack acknowledges d to b as a window would once it has painted it: the batch's last seq and
// the cards running after it.
func (r *Recorder) Ack(b *events.Bridge, d Delivery) { b.Painted(d.Seq(), d.Running) }

// Block makes Deliver wait, like a hung window, until the returned function is called.
func (r *Recorder) Block() (unblock func()) {
	ch := make(chan struct{})
	r.mu.Lock()
	r.block = ch
	r.mu.Unlock()
	var once sync.Once
	return func() {
		once.Do(func() {
			r.mu.Lock()
			r.block = nil
			r.mu.Unlock()
			close(ch)
		})
	}
}

// Deliveries returns every batch received so far.
func (r *Recorder) Deliveries() []Delivery {
	r.mu.Lock()
	defer r.mu.Unlock()
	return slices.Clone(r.deliveries)
}

// Events returns every event received so far, in delivery order.
func (r *Recorder) Events() []events.Event {
	r.mu.Lock()
	defer r.mu.Unlock()
	var out []events.Event
	for _, d := range r.deliveries {
		out = append(out, d.Events...)
	}
	return out
}

// Next returns the first batch not yet returned by Next, waiting for it up to [Wait].
func (r *Recorder) Next(tb testing.TB) Delivery {
	tb.Helper()
	deadline := time.After(Wait)
	for {
		r.mu.Lock()
		if r.read < len(r.deliveries) {
			d := r.deliveries[r.read]
			r.read++
			r.mu.Unlock()
			return d
		}
		changed := r.changed
		r.mu.Unlock()
		select {
		case <-changed:
		case <-deadline:
			tb.Fatalf("no batch delivered within %v", Wait)
		}
	}
}

// WaitFor waits up to [Wait] until ok holds for the events received so far, and returns them.
func (r *Recorder) WaitFor(tb testing.TB, ok func([]events.Event) bool) []events.Event {
	tb.Helper()
	deadline := time.After(Wait)
	for {
		r.mu.Lock()
		changed := r.changed
		r.mu.Unlock()
		if evs := r.Events(); ok(evs) {
			return evs
		}
		select {
		case <-changed:
		case <-deadline:
			tb.Fatalf("the awaited events were not delivered within %v; got %d events", Wait, len(r.Events()))
		}
	}
}

// WaitForCount waits until at least n events were received, and returns them.
func (r *Recorder) WaitForCount(tb testing.TB, n int) []events.Event {
	tb.Helper()
	return r.WaitFor(tb, func(evs []events.Event) bool { return len(evs) >= n })
}
