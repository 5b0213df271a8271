package events

import (
	"errors"
	"fmt"
	"io"
	"os"
	"sync"
	"time"
	"unicode/utf8"
)

// DefaultFallback is how long the bridge waits for a batch's paint acknowledgement before it
// sends the next batch anyway, so a hidden or hung webview never stalls the app.
const DefaultFallback = 250 * time.Millisecond

// mergeScan bounds how far back from the queue's tail Emit looks for the last queued event of
// the same chat. Queues are short (one merged delta per streaming chat plus a few lifecycle
// events); past this distance a delta is simply queued.
const mergeScan = 256

// keptToolCalls bounds the finished tool-call records kept for [Bridge.ToolCallTimings].
const keptToolCalls = 4096

// Option configures a [Bridge].
type Option func(*config)

type config struct {
	fallback time.Duration
	ahead    bool
	logPath  string
	logSet   bool // logPath or logWriter given: the environment is not read
	logW     io.Writer
}

// WithFallback sets how long an unacknowledged batch holds the next one back (default
// [DefaultFallback]). Zero or less means no waiting at all.
func WithFallback(d time.Duration) Option { return func(c *config) { c.fallback = d } }

// WithTextAhead lets a batch that holds no tool event go while one batch that holds none is
// in flight, so a window receives the next text while it paints the last, instead of a
// round trip after each paint: at most two batches in flight, neither with a tool event. A
// batch with a tool event still goes only when nothing is in flight, and a result still waits
// for its call's paint.
func WithTextAhead() Option { return func(c *config) { c.ahead = true } }

// WithLogFile appends the bridge log to path instead of the file named by PROTOTYPER_BRIDGE_LOG;
// an empty path turns the log off whatever the environment says.
func WithLogFile(path string) Option {
	return func(c *config) { c.logPath, c.logW, c.logSet = path, nil, true }
}

// WithLog writes the bridge log to w (which the bridge does not close) instead of the file
// named by PROTOTYPER_BRIDGE_LOG.
func WithLog(w io.Writer) Option {
	return func(c *config) { c.logPath, c.logW, c.logSet = "", w, true }
}

// Bridge takes events from the agent loop and delivers them to one [Sink] in batches paced by
// paint acknowledgements. Use one Bridge per window (or terminal): Seq is strictly increasing
// across everything it carries, every chat included.
//
// The guarantees:
//
//   - [Bridge.Emit] never waits for the sink: it stamps the event and queues it.
//   - One batch in flight: the next batch goes when [Bridge.Painted] acknowledges the previous
//     one, when the fallback has passed since it was sent, at once while the window is hidden
//     ([Bridge.SetVisible]), or at once for a sink that [PaintsOnDelivery]. With
//     [WithTextAhead], a second batch may go before that when neither holds a tool event.
//   - A queued thinking.delta or text.delta absorbs the next delta of the same chat, message and
//     kind, provided nothing else of that chat was queued in between; so memory stays bounded
//     while a batch waits, and text never jumps over a tool call. A tool.output absorbs the
//     next of the same call likewise. Every other event is delivered once, in seq order:
//     never merged, dropped or reordered.
//   - A tool.result never shares a batch with a tool.call of the same id: the batch closes
//     before it. And once the call was sent as running, the result goes only after an
//     acknowledgement listed the call as running, or after the fallback has passed since the
//     call's batch was sent (or the window is hidden, or the bridge is closing). The tool runs
//     meanwhile: painting costs a run no time.
type Bridge struct {
	sink     Sink
	selfAck  bool
	fallback time.Duration
	textAhd  bool       // WithTextAhead
	log      *bridgeLog // nil: no bridge log
	closeLog bool

	wake chan struct{} // capacity 1: a pending nudge for the sender
	done chan struct{} // closed when the sender has flushed and returned

	closeOnce sync.Once

	mu       sync.Mutex
	seq      uint64
	queue    []queued // the events waiting are queue[head:]
	head     int
	idle     bool // the sender waits for events, with no deadline: Emit must nudge it
	visible  bool
	closing  bool
	flight   flight // the oldest batch in flight
	ahead    flight // a batch sent while flight was still out (WithTextAhead)
	calls    map[string]*toolCall
	order    []string // tool-call ids in the order first seen, for pruning
	pruneAt  int      // prune once order is longer than this
	stats    Stats
	firstErr error
}

// queued is an event waiting to be sent. A delta that has absorbed others keeps its text in
// buf, so merging n deltas costs amortised O(total length), not O(n²).
type queued struct {
	ev  Event
	buf []byte
	// a tool.output that absorbed others: buf holds its head and tail (at most
	// outputHeadBytes and outputTailBytes), cut the bytes left out after its first head
	// bytes
	cut  int64
	head int
}

// outputHeadBytes and outputTailBytes bound the text one queued tool.output keeps while the
// window is slow: the first and the last bytes of what the command printed meanwhile, the
// middle counted. A command printing 100 MB costs the bridge this much per call and stream.
const (
	outputHeadBytes = 32 << 10
	outputTailBytes = 32 << 10
)

// flight is a batch handed to the sink.
type flight struct {
	active   bool
	released bool // acknowledged, past its fallback, or failed
	tools    bool // it holds a tool event
	firstSeq uint64
	sentAt   time.Time
}

// out reports whether the batch is in flight: sent, neither acknowledged nor past its fallback.
func (f *flight) out() bool { return f.active && !f.released }

// toolCall is what the bridge knows about one tool call: its gating state and its timings.
type toolCall struct {
	ToolCallTiming
	runningSent bool
	painted     bool
	finished    bool // its result was sent
}

// ToolCallTiming is when one tool call's running card and result crossed the bridge; read it
// with [Bridge.ToolCallTiming] in tests and benchmarks. A zero time means "not yet" (or
// "never", for PaintedAt).
type ToolCallTiming struct {
	ToolCallID string
	ChatID     string
	// RunningSentAt is when the batch holding the call's running tool.call went to the sink.
	RunningSentAt time.Time
	// PaintedAt is when an acknowledgement first listed the call as running.
	PaintedAt time.Time
	// ResultEmittedAt is when the loop emitted the call's tool.result (the tool's completion).
	ResultEmittedAt time.Time
	// ResultSentAt is when the batch holding the tool.result went to the sink.
	ResultSentAt time.Time
}

// ResultDelay is the time the bridge added between the tool's completion and its result's
// delivery (zero until the result was sent).
func (t ToolCallTiming) ResultDelay() time.Duration {
	if t.ResultSentAt.IsZero() || t.ResultEmittedAt.IsZero() {
		return 0
	}
	return t.ResultSentAt.Sub(t.ResultEmittedAt)
}

// PaintedBeforeResult reports whether an acknowledgement listed the call as running before its
// result was sent (false when the result went after the fallback, or while hidden).
func (t ToolCallTiming) PaintedBeforeResult() bool {
	return !t.PaintedAt.IsZero() && !t.ResultSentAt.IsZero() && !t.PaintedAt.After(t.ResultSentAt)
}

// Stats counts what a bridge has done; see [Bridge.Stats].
type Stats struct {
	Emitted        uint64 // events handed to Emit, merged ones included
	Merged         uint64 // deltas absorbed by a queued delta
	Batches        uint64 // batches handed to the sink
	Delivered      uint64 // events handed to the sink
	Acks           uint64 // acknowledgements received (stale ones included)
	Fallbacks      uint64 // times the fallback, not an acknowledgement, let the next batch go
	DeliveryErrors uint64 // batches the sink failed to deliver
	AfterClose     uint64 // events emitted after Close, which are ignored
	Queued         int    // events waiting now
	InFlight       bool   // a batch is out, neither acknowledged nor past its fallback
}

// NewBridge starts a bridge delivering to sink. The bridge log is read from
// PROTOTYPER_BRIDGE_LOG unless an option says otherwise; the only error is [ErrBridgeLog].
// Call [Bridge.Close] to flush and stop it.
func NewBridge(sink Sink, opts ...Option) (*Bridge, error) {
	c := config{fallback: DefaultFallback}
	for _, o := range opts {
		o(&c)
	}
	if !c.logSet {
		c.logPath = os.Getenv(LogEnv)
	}
	b := &Bridge{
		sink:     sink,
		selfAck:  paintsOnDelivery(sink),
		fallback: c.fallback,
		textAhd:  c.ahead,
		wake:     make(chan struct{}, 1),
		done:     make(chan struct{}),
		visible:  true,
		calls:    make(map[string]*toolCall),
		pruneAt:  2 * keptToolCalls,
	}
	switch {
	case c.logW != nil:
		b.log = &bridgeLog{w: c.logW}
	case c.logPath != "":
		l, err := openBridgeLog(c.logPath)
		if err != nil {
			return nil, err
		}
		b.log = l
	}
	go b.send()
	return b, nil
}

// Emit hands an event to the bridge and returns at once; it never waits for the sink. It sets
// V, Seq (strictly increasing) and At. A delta absorbed by a queued delta takes no Seq of its
// own: the merged event keeps the Seq and At of its first part. Emit is safe for concurrent use;
// events emitted after Close are ignored.
func (b *Bridge) Emit(e Event) {
	b.mu.Lock()
	if b.closing {
		b.stats.AfterClose++
		b.mu.Unlock()
		return
	}
	b.stats.Emitted++
	if (e.Type.IsDelta() && b.mergeLocked(&e)) || (e.Type == ToolOutput && b.mergeOutputLocked(&e)) {
		b.stats.Merged++
		b.mu.Unlock()
		return // a merge never makes a batch ready that was not ready already
	}
	now := time.Now() // only now: a merged delta needs no stamp
	b.seq++
	e.V, e.Seq, e.At = Version, b.seq, now
	b.queue = append(b.queue, queued{ev: e})
	if e.ToolCallID != "" {
		b.noteToolEventLocked(&e, now)
	}
	nudge := b.idle
	b.idle = false
	b.mu.Unlock()
	if nudge {
		b.nudge()
	}
}

// mergeLocked appends e's text to the last queued event of e's chat when that is a delta of the
// same run, message and kind.
func (b *Bridge) mergeLocked(e *Event) bool {
	for i, n := len(b.queue)-1, 0; i >= b.head && n < mergeScan; i, n = i-1, n+1 {
		q := &b.queue[i]
		if q.ev.ChatID != e.ChatID {
			continue
		}
		if q.ev.Type != e.Type || q.ev.MessageID != e.MessageID || q.ev.RunID != e.RunID {
			return false
		}
		if q.buf == nil {
			q.buf = make([]byte, 0, 2*(len(q.ev.Text)+len(e.Text))+32)
			q.buf = append(q.buf, q.ev.Text...)
		}
		q.buf = append(q.buf, e.Text...)
		return true
	}
	return false
}

// mergeOutputLocked appends e's text to the queued tool.output of the same call and stream,
// provided nothing of e's chat but output of that call was queued after it: the two streams
// of a call are merged apart, so their interleaving costs no memory. What outgrows the
// head and tail bounds is cut from the middle and counted.
func (b *Bridge) mergeOutputLocked(e *Event) bool {
	for i, n := len(b.queue)-1, 0; i >= b.head && n < mergeScan; i, n = i-1, n+1 {
		q := &b.queue[i]
		if q.ev.ChatID != e.ChatID {
			continue
		}
		if q.ev.Type != ToolOutput || q.ev.ToolCallID != e.ToolCallID || q.ev.RunID != e.RunID {
			return false
		}
		if q.ev.Stream != e.Stream {
			continue // the other stream of the same call
		}
		if q.buf == nil {
			q.buf = make([]byte, 0, min(2*(len(q.ev.Text)+len(e.Text))+32, outputHeadBytes+2*outputTailBytes))
			q.buf = append(q.buf, q.ev.Text...)
		}
		q.buf = append(q.buf, e.Text...)
		q.cut += e.Dropped
		if len(q.buf) > outputHeadBytes+2*outputTailBytes {
			head := runeCut(q.buf, outputHeadBytes)
			tail := len(q.buf) - outputTailBytes
			for tail < len(q.buf) && !utf8.RuneStart(q.buf[tail]) {
				tail++
			}
			q.cut += int64(tail - head)
			q.buf = append(q.buf[:head], q.buf[tail:]...)
			q.head = head // the head, kept apart from the tail from now on
		}
		return true
	}
	return false
}

// runeCut is the largest n' <= n at which b can be cut without splitting a UTF-8 sequence.
func runeCut(b []byte, n int) int {
	n = min(n, len(b))
	for n > 0 && n < len(b) && !utf8.RuneStart(b[n]) {
		n--
	}
	return n
}

// outputText is the text of a merged tool.output: its head, a line saying how much was left
// out, its tail.
func outputText(q *queued) (string, int64) {
	if q.cut == 0 {
		return string(q.buf), q.ev.Dropped
	}
	return fmt.Sprintf("%s\n[… %d bytes of output not shown …]\n%s", q.buf[:q.head], q.cut+q.ev.Dropped, q.buf[q.head:]), q.cut + q.ev.Dropped
}

// noteToolEventLocked keeps the tool-call record current for a tool event just queued.
func (b *Bridge) noteToolEventLocked(e *Event, now time.Time) {
	tc := b.calls[e.ToolCallID]
	switch e.Type {
	case ToolCall:
		if tc == nil || tc.finished { // a new call, or an id reused after its result
			if tc == nil {
				b.order = append(b.order, e.ToolCallID)
			}
			tc = &toolCall{ToolCallTiming: ToolCallTiming{ToolCallID: e.ToolCallID, ChatID: e.ChatID}}
			b.calls[e.ToolCallID] = tc
		}
	case ToolResult:
		if tc != nil && tc.ResultEmittedAt.IsZero() {
			tc.ResultEmittedAt = now
		}
	}
}

// pruneLocked forgets the oldest finished tool calls once there are too many records. Calls
// still unfinished are kept; the next attempt waits for keptToolCalls more records, so the
// cost stays amortised O(1) per call.
func (b *Bridge) pruneLocked() {
	if len(b.order) <= b.pruneAt {
		return
	}
	defer func() { b.pruneAt = max(2*keptToolCalls, len(b.order)+keptToolCalls) }()
	kept := b.order[:0]
	excess := len(b.order) - keptToolCalls
	for _, id := range b.order {
		if tc := b.calls[id]; excess > 0 && (tc == nil || tc.finished) {
			delete(b.calls, id)
			excess--
			continue
		}
		kept = append(kept, id)
	}
	clear(b.order[len(kept):])
	b.order = kept
}

// Painted acknowledges that the window has painted the batch whose last event is seq, with the
// tool calls in running listed in running (every running card in the DOM, not only this
// batch's). An acknowledgement of an older batch still counts for its running list. Bind it as
// App.Painted.
func (b *Bridge) Painted(seq uint64, running []string) { b.PaintedAt(seq, running, PageTimes{}) }

// PageTimes are the window's own times of a batch it acknowledges, noted on the bridge log
// beside the acknowledgement (zero: not known): they split a batch's way to the screen into its
// delivery, the wait for a frame, and the acknowledgement's way back.
type PageTimes struct {
	// Received is when the page received the batch; Painted when it knew the frame showing it
	// painted, the moment it sent the acknowledgement.
	Received, Painted time.Time
}

// PaintedAt is [Bridge.Painted] with the page's times of the batch, for the bridge log.
func (b *Bridge) PaintedAt(seq uint64, running []string, page PageTimes) {
	now := time.Now()
	// The log line goes first, so in the log an acknowledgement always precedes the batch it lets go.
	if b.log != nil {
		b.log.ack(now, seq, running, page)
	}
	b.mu.Lock()
	b.stats.Acks++
	for _, id := range running {
		if tc := b.calls[id]; tc != nil && tc.runningSent && !tc.painted {
			tc.painted, tc.PaintedAt = true, now
		}
	}
	for _, f := range []*flight{&b.flight, &b.ahead} {
		if f.out() && seq >= f.firstSeq {
			f.released = true
		}
	}
	b.mu.Unlock()
	b.nudge()
}

// KeyReceived notes on the bridge log (when it is on) that the window received key at at, the
// key event's own time: the start of what the window measures from a key. Bind it as
// App.KeyReceived.
func (b *Bridge) KeyReceived(key string, at time.Time) {
	if b.log != nil {
		b.log.key(at, time.Now(), key)
	}
}

// SetVisible tells the bridge whether the window is visible. While it is not, the bridge does
// not wait for acknowledgements at all (a hidden webview may not paint). Bind it as
// App.SetVisible.
func (b *Bridge) SetVisible(visible bool) {
	b.mu.Lock()
	b.visible = visible
	b.mu.Unlock()
	b.nudge()
}

// Stats returns the bridge's counters and its queue's state now.
func (b *Bridge) Stats() Stats {
	b.mu.Lock()
	defer b.mu.Unlock()
	s := b.stats
	s.Queued = len(b.queue) - b.head
	s.InFlight = b.flight.out() || b.ahead.out()
	return s
}

// ToolCallTiming returns the timings of the tool call with the given id (the latest call, if
// an id was reused).
func (b *Bridge) ToolCallTiming(toolCallID string) (ToolCallTiming, bool) {
	b.mu.Lock()
	defer b.mu.Unlock()
	tc, ok := b.calls[toolCallID]
	if !ok {
		return ToolCallTiming{}, false
	}
	return tc.ToolCallTiming, true
}

// ToolCallTimings returns the timings of the tool calls the bridge remembers (the latest few
// thousand), in the order they were first emitted.
func (b *Bridge) ToolCallTimings() []ToolCallTiming {
	b.mu.Lock()
	defer b.mu.Unlock()
	out := make([]ToolCallTiming, 0, len(b.order))
	for _, id := range b.order {
		if tc := b.calls[id]; tc != nil {
			out = append(out, tc.ToolCallTiming)
		}
	}
	return out
}

// Close delivers everything still queued without waiting for acknowledgements (a result still
// goes in a later batch than its call), stops the bridge and closes its log. It waits for the
// sink to take the last batch. It returns [ErrDelivery] with the sink's first error if any
// delivery failed. Close is idempotent.
func (b *Bridge) Close() error {
	b.closeOnce.Do(func() {
		b.mu.Lock()
		b.closing = true
		b.mu.Unlock()
		b.nudge()
		<-b.done
		if b.log != nil {
			if err := b.log.close(); err != nil {
				b.mu.Lock()
				b.firstErr = errors.Join(b.firstErr, fmt.Errorf("close the bridge log: %w", err))
				b.mu.Unlock()
			}
		}
	})
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.firstErr != nil {
		return fmt.Errorf("%w: %w", ErrDelivery, b.firstErr)
	}
	return nil
}

func (b *Bridge) nudge() {
	select {
	case b.wake <- struct{}{}:
	default:
	}
}

// send is the bridge's goroutine: it cuts batches from the queue and hands them to the sink.
func (b *Bridge) send() {
	defer close(b.done)
	timer := time.NewTimer(time.Hour)
	timer.Stop()
	for {
		b.mu.Lock()
		// Stamped under the lock: an acknowledgement that let this batch go was stamped before
		// it, so a result's ResultSentAt never precedes its call's PaintedAt.
		now := time.Now()
		batch, running, wait, done := b.cutLocked(now)
		b.mu.Unlock()
		if done {
			return
		}
		if batch == nil {
			if wait > 0 {
				timer.Reset(wait)
				select {
				case <-b.wake:
				case <-timer.C:
				}
				timer.Stop()
			} else {
				<-b.wake
			}
			continue
		}
		if b.log != nil {
			b.log.batch(now, batch)
		}
		last := batch[len(batch)-1].Seq
		err := b.sink.Deliver(batch)
		if err != nil {
			b.mu.Lock()
			b.stats.DeliveryErrors++
			if b.firstErr == nil {
				b.firstErr = err
			}
			for _, f := range []*flight{&b.flight, &b.ahead} {
				if f.active && f.firstSeq == batch[0].Seq {
					f.released = true // no acknowledgement will come for it
				}
			}
			b.mu.Unlock()
			continue
		}
		if b.selfAck {
			b.Painted(last, running)
		}
	}
}

// dequeueLocked drops the first n waiting events. The slice is compacted only once its dead
// front outgrows the waiting part, so a long queue drained in small batches costs amortised
// O(1) per event, not a copy of the whole queue per batch.
func (b *Bridge) dequeueLocked(n int) {
	clear(b.queue[b.head : b.head+n])
	b.head += n
	switch waiting := len(b.queue) - b.head; {
	case waiting == 0:
		b.queue, b.head = b.queue[:0], 0
	case b.head > waiting && b.head >= 64:
		copy(b.queue, b.queue[b.head:])
		clear(b.queue[waiting:])
		b.queue, b.head = b.queue[:waiting], 0
	}
}

// cutLocked decides what the sender does now: send a batch (with the ids of the tool calls it
// carries as running), wait (for wait, or for a nudge when wait is 0), or stop.
func (b *Bridge) cutLocked(now time.Time) (batch []Event, running []string, wait time.Duration, done bool) {
	waiting := b.queue[b.head:]
	if len(waiting) == 0 {
		if b.closing {
			return nil, nil, 0, true
		}
		b.idle = true
		return nil, nil, 0, false
	}
	b.idle = false
	pacing := b.visible && !b.closing && b.fallback > 0
	ahead := false
	if pacing {
		for _, f := range []*flight{&b.flight, &b.ahead} {
			if f.out() && !now.Before(f.sentAt.Add(b.fallback)) {
				f.released = true
				b.stats.Fallbacks++
			}
		}
		if !b.flight.out() && b.ahead.active {
			b.flight, b.ahead = b.ahead, flight{}
		}
		if b.flight.out() {
			// the oldest batch in flight waits for its ack; text may go ahead of it once
			wait = b.flight.sentAt.Add(b.fallback).Sub(now)
			if !b.textAhd || b.flight.tools || b.ahead.active || waiting[0].ev.ToolCallID != "" {
				return nil, nil, wait, false
			}
			ahead = true
		}
	}

	n := 0
	var callsInBatch []string
cut:
	for ; n < len(waiting); n++ {
		ev := &waiting[n].ev
		if ev.ToolCallID == "" {
			continue
		}
		if ahead {
			break // a tool event never goes ahead of a batch in flight
		}
		switch ev.Type {
		case ToolCall:
			callsInBatch = append(callsInBatch, ev.ToolCallID)
		case ToolResult:
			for _, id := range callsInBatch {
				if id == ev.ToolCallID {
					break cut // the batch closes before the result
				}
			}
			if tc := b.calls[ev.ToolCallID]; pacing && tc != nil && tc.runningSent && !tc.painted {
				if deadline := tc.RunningSentAt.Add(b.fallback); now.Before(deadline) {
					wait = deadline.Sub(now)
					break cut // not yet shown running: the result and all after it wait
				}
			}
		}
	}
	if n == 0 {
		return nil, nil, wait, false // the head is a result waiting for its call's paint
	}

	batch = make([]Event, n)
	for i := range batch {
		q := &waiting[i]
		batch[i] = q.ev
		switch {
		case q.buf != nil && q.ev.Type == ToolOutput:
			batch[i].Text, batch[i].Dropped = outputText(q)
		case q.buf != nil:
			batch[i].Text = string(q.buf)
		}
		e := &batch[i]
		if e.ToolCallID == "" {
			continue
		}
		tc := b.calls[e.ToolCallID]
		if tc == nil {
			continue // a result or progress of a call the bridge never saw
		}
		switch {
		case e.Type == ToolCall && e.State == ToolStateRunning:
			running = append(running, e.ToolCallID)
			if !tc.runningSent {
				tc.runningSent, tc.RunningSentAt = true, now
			}
		case e.Type == ToolResult && !tc.finished:
			tc.finished, tc.ResultSentAt = true, now
		}
	}
	b.dequeueLocked(n)

	b.pruneLocked()
	sent := flight{active: true, firstSeq: batch[0].Seq, sentAt: now}
	for i := range batch {
		sent.tools = sent.tools || batch[i].ToolCallID != ""
	}
	if ahead {
		b.ahead = sent
	} else {
		b.flight, b.ahead = sent, flight{}
	}
	b.stats.Batches++
	b.stats.Delivered += uint64(n)
	return batch, running, 0, false
}
