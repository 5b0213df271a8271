package agentloop

import (
	"context"
	"fmt"
	"testing"

	"prototyper/events"
	"prototyper/model"
	"prototyper/store"
	"prototyper/tools"
)

// BenchmarkLoopToolRoundTrip measures the loop's own cost of one tool round trip — a model
// turn that asks for a call, the call's checks, records and events, its result sent back —
// with an instant fake model and an instant tool, on a real store (bbolt, fsync per commit,
// which is most of the figure). The runs have `trips` round trips each, then an answer; the
// metric ns/trip divides the whole run by the round trips.
func BenchmarkLoopToolRoundTrip(b *testing.B) {
	for _, trips := range []int{1, 10} {
		b.Run(fmt.Sprintf("trips=%d", trips), func(b *testing.B) {
			m := &fakeModel{turn: func(req model.Request) model.Turn {
				if n := countToolMessages(req); n < trips {
					// each trip's call its own, as a working model's are: the same call again
					// and again is a loop, which the run stops
					return toolTurn(tc("", "echo", fmt.Sprintf(`{"text":"hi %d"}`, n)))
				}
				return answer("done")
			}}
			a, _, _ := fakeHarness(b, m, func(c *Config) {
				c.Emitter = EmitterFunc(func(events.Event) {})
				c.MaxSteps = trips + 1
			}, echoTool(tools.Parallel, nil))
			b.ReportAllocs()
			b.ResetTimer()
			for b.Loop() {
				out, err := a.RunOnce(context.Background(), "", "go", RunOptions{})
				if err != nil || out.StopReason != events.StopCompleted {
					b.Fatalf("%v %q", err, out.StopReason)
				}
				m.mu.Lock()
				m.reqs = m.reqs[:0]
				m.mu.Unlock()
			}
			b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*trips), "ns/trip")
		})
	}
}

func countToolMessages(req model.Request) int {
	n := 0
	for _, m := range req.Messages {
		if m.Role == store.RoleTool {
			n++
		}
	}
	return n
}
