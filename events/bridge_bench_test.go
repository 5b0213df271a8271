package events_test

import (
	"encoding/json"
	"fmt"
	"slices"
	"sync"
	"syscall"
	"testing"
	"time"

	"prototyper/events"
)

// frame is one paint at 60 Hz: the emulated window acknowledges a batch this long after it
// got it.
const frame = 16_700 * time.Microsecond

// tokensPerSecond is the synthetic stream's rate, a fast local model.
const tokensPerSecond = 20_000

// token is the text of one synthetic token; fixed width, so a merged delta's length says how
// many tokens it carries.
const token = "tok "

// emulatedEmit does on the Go side what runtime.EventsEmit does per call: encode the event
// name and its data to JSON (Wails then hands the string to the webview).
func emulatedEmit(data any) {
	payload, err := json.Marshal(struct {
		Name string `json:"name"`
		Data []any  `json:"data"`
	}{"agent:batch", []any{data}})
	if err != nil || len(payload) == 0 {
		panic(err)
	}
}

// cpuTime is the process's user+system CPU time so far.
func cpuTime(b *testing.B) time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		b.Fatal(err)
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// streamLatency records, per token, the time from its arrival to its delivery.
type streamLatency struct {
	arrival   []time.Time // written by the generator before it emits token i
	latency   []time.Duration
	delivered int
	emits     int
	all       chan struct{} // closed when every token was delivered
}

func newStreamLatency(n int) *streamLatency {
	return &streamLatency{arrival: make([]time.Time, n), latency: make([]time.Duration, n), all: make(chan struct{})}
}

// deliveredTokens notes that n more tokens reached the sink now.
func (s *streamLatency) deliveredTokens(n int) {
	now := time.Now()
	for i := s.delivered; i < s.delivered+n; i++ {
		s.latency[i] = now.Sub(s.arrival[i])
	}
	s.delivered += n
	s.emits++
	if s.delivered == len(s.arrival) {
		close(s.all)
	}
}

func (s *streamLatency) report(b *testing.B, elapsed, cpu time.Duration) {
	slices.Sort(s.latency)
	pct := func(p float64) float64 {
		return float64(s.latency[int(p*float64(len(s.latency)-1))]) / float64(time.Millisecond)
	}
	b.ReportMetric(float64(s.emits)/elapsed.Seconds(), "emits/s")
	b.ReportMetric(float64(cpu)/float64(b.N), "cpu-ns/token")
	b.ReportMetric(pct(0.50), "p50-ms")
	b.ReportMetric(pct(0.99), "p99-ms")
}

// paceTokens calls emit for b.N tokens at tokensPerSecond, noting each token's arrival first.
func paceTokens(b *testing.B, lat *streamLatency, emit func(i int)) {
	interval := time.Second / tokensPerSecond
	start := time.Now()
	for i := range b.N {
		if d := time.Until(start.Add(time.Duration(i) * interval)); d > 0 {
			time.Sleep(d)
		}
		lat.arrival[i] = time.Now()
		emit(i)
	}
}

// BenchmarkBridgeStream compares, on one synthetic stream of 20,000 tokens/s, the bridge
// delivering to a window that acknowledges each batch a frame after it got it, with the naive
// approach of one emit per token. One op is one token; ns/op is the pacing (50µs), the
// figures are the custom metrics.
func BenchmarkBridgeStream(b *testing.B) {
	b.Run("bridge-ack-16.7ms", func(b *testing.B) {
		b.ReportAllocs()
		lat := newStreamLatency(b.N)
		var bridge *events.Bridge
		var mu sync.Mutex // the sink is called from one goroutine; this guards bridge only
		sink := events.SinkFunc(func(batch []events.Event) error {
			emulatedEmit(batch)
			n := 0
			for i := range batch {
				n += len(batch[i].Text) / len(token)
			}
			lat.deliveredTokens(n)
			seq := batch[len(batch)-1].Seq
			mu.Lock()
			br := bridge
			mu.Unlock()
			time.AfterFunc(frame, func() { br.Painted(seq, nil) })
			return nil
		})
		br, err := events.NewBridge(sink, events.WithLogFile(""))
		if err != nil {
			b.Fatal(err)
		}
		mu.Lock()
		bridge = br
		mu.Unlock()
		ev := events.Event{ChatID: "c", RunID: "r", MessageID: "m", Type: events.TextDelta, Text: token}

		cpu0, t0 := cpuTime(b), time.Now()
		b.ResetTimer()
		paceTokens(b, lat, func(int) { br.Emit(ev) })
		<-lat.all
		b.StopTimer()
		elapsed, cpu := time.Since(t0), cpuTime(b)-cpu0
		if err := br.Close(); err != nil {
			b.Fatal(err)
		}
		lat.report(b, elapsed, cpu)
	})

	b.Run("naive-emit-per-token", func(b *testing.B) {
		b.ReportAllocs()
		lat := newStreamLatency(b.N)
		ev := events.Event{V: events.Version, ChatID: "c", RunID: "r", MessageID: "m", Type: events.TextDelta, Text: token}

		cpu0, t0 := cpuTime(b), time.Now()
		b.ResetTimer()
		paceTokens(b, lat, func(i int) {
			e := ev
			e.Seq, e.At = uint64(i+1), time.Now()
			emulatedEmit(e)
			lat.deliveredTokens(1)
		})
		<-lat.all
		b.StopTimer()
		lat.report(b, time.Since(t0), cpuTime(b)-cpu0)
	})
}

// resultSink tells the benchmark when a tool's result was delivered, and acknowledges every
// batch a frame after delivery, listing the running calls it carried.
type resultSink struct {
	mu      sync.Mutex
	bridge  *events.Bridge
	results chan string
}

func (s *resultSink) Deliver(batch []events.Event) error {
	emulatedEmit(batch)
	var running []string
	for _, e := range batch {
		switch {
		case e.Type == events.ToolCall && e.State == events.ToolStateRunning:
			running = append(running, e.ToolCallID)
		case e.Type == events.ToolResult:
			s.results <- e.ToolCallID
		}
	}
	seq := batch[len(batch)-1].Seq
	s.mu.Lock()
	br := s.bridge
	s.mu.Unlock()
	time.AfterFunc(frame, func() { br.Painted(seq, running) })
	return nil
}

// waitQuiet waits until nothing is queued or unacknowledged.
func waitQuiet(br *events.Bridge) {
	for s := br.Stats(); s.Queued > 0 || s.InFlight; s = br.Stats() {
		time.Sleep(500 * time.Microsecond)
	}
}

// BenchmarkBridgeToolResultDelay measures the time the bridge adds between a tool's completion
// and the delivery of its result, the window acknowledging each batch a frame after it got it.
// "quiet": the call is the only thing in flight. "behind-text": the call comes right after a
// text batch was delivered, so it first waits for that batch's acknowledgement (the worst case).
func BenchmarkBridgeToolResultDelay(b *testing.B) {
	for _, behindText := range []bool{false, true} {
		for _, tool := range []time.Duration{0, 5 * time.Millisecond, 50 * time.Millisecond} {
			name := fmt.Sprintf("tool=%v/quiet", tool)
			if behindText {
				name = fmt.Sprintf("tool=%v/behind-text", tool)
			}
			b.Run(name, func(b *testing.B) {
				sink := &resultSink{results: make(chan string, 1)}
				br, err := events.NewBridge(sink, events.WithLogFile(""))
				if err != nil {
					b.Fatal(err)
				}
				sink.mu.Lock()
				sink.bridge = br
				sink.mu.Unlock()
				delays := make([]time.Duration, 0, b.N)
				b.ResetTimer()
				for i := range b.N {
					b.StopTimer()
					waitQuiet(br)
					id := fmt.Sprintf("t%d", i)
					if behindText {
						br.Emit(delta("c", "text before the call"))
						for br.Stats().Queued > 0 {
							time.Sleep(100 * time.Microsecond)
						}
					}
					b.StartTimer()
					br.Emit(call("c", id, events.ToolStateRunning))
					time.Sleep(tool) // the tool runs while its card is painted
					br.Emit(result("c", id))
					<-sink.results
					tm, _ := br.ToolCallTiming(id)
					delays = append(delays, tm.ResultDelay())
				}
				b.StopTimer()
				waitQuiet(br)
				if err := br.Close(); err != nil {
					b.Fatal(err)
				}
				slices.Sort(delays)
				ms := func(d time.Duration) float64 { return float64(d) / float64(time.Millisecond) }
				b.ReportMetric(ms(delays[len(delays)/2]), "added-p50-ms")
				b.ReportMetric(ms(delays[len(delays)-1]), "added-max-ms")
			})
		}
	}
}

// BenchmarkBridgeEmit is the loop's side of the hand-off, unpaced: the cost of one Emit.
// "delta-merging-in-flight": a batch waits for its acknowledgement and every delta merges into
// the queued one. "lifecycle-hidden": nothing waits, the sender drains the queue as it fills.
func BenchmarkBridgeEmit(b *testing.B) {
	for _, tc := range []struct {
		name   string
		ev     events.Event
		hidden bool
	}{
		{"delta-merging-in-flight", delta("c", token), false},
		{"lifecycle-hidden", lifecycle("c", events.PhaseChanged), true},
	} {
		b.Run(tc.name, func(b *testing.B) {
			b.ReportAllocs()
			var blocked sync.WaitGroup
			blocked.Add(1)
			br, err := events.NewBridge(events.SinkFunc(func([]events.Event) error { blocked.Wait(); return nil }),
				events.WithFallback(never), events.WithLogFile(""))
			if err != nil {
				b.Fatal(err)
			}
			if tc.hidden {
				br.SetVisible(false)
				blocked.Done()
			}
			br.Emit(lifecycle("c", events.RunStarted))
			b.ResetTimer()
			for range b.N {
				br.Emit(tc.ev)
			}
			b.StopTimer()
			if !tc.hidden {
				blocked.Done()
			}
			if err := br.Close(); err != nil {
				b.Fatal(err)
			}
		})
	}
}
