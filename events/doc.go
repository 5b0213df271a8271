// Package events carries what the agent does to whoever watches: the event envelope
// ([Event]), the [Bridge] that coalesces deltas and paces batches by paint acknowledgements,
// and the sinks that deliver batches (the Wails window in package wailssink, a terminal
// [JSONLines] or any [AckOnDelivery] renderer, and the test recorder in package eventstest).
//
// # Why
//
// A fast tool's call, result and the turn's end used to reach the webview in one synchronous
// burst; React rendered only the final state and the user never saw the tool running. The
// bridge makes that impossible by flow control, not by sleeping: one batch in flight, a tool's
// result never in the batch of its call, and the next batch only once the window says it has
// painted the previous one.
//
// # Basics
//
//	b, err := events.NewBridge(sink)   // reads PROTOTYPER_BRIDGE_LOG
//	defer b.Close()                     // flushes what is queued
//	b.Emit(ev)                          // from the agent loop; never blocks
//	b.Painted(seq, runningToolCallIDs)  // from the window, once it painted batch seq
//	b.SetVisible(false)                 // from the window, when hidden: stop waiting
//
// The [Bridge] stamps each event (V, Seq, At), queues it, and a goroutine of its own hands
// batches to the [Sink]. Deltas of one message merge while they wait, so a fast model costs a
// window one batch per frame instead of one event per token.
//
// # Caveats
//
//   - A merged delta keeps the Seq and At of its first part, so Seq has no gaps.
//   - Tool calls are told apart by ToolCallID alone, which must be unique while the call lives.
//   - Without acknowledgements (a window that never calls Painted) batches go one per fallback
//     ([DefaultFallback], 250 ms); a result whose call the window did not report running waits
//     that long too.
//   - Close waits for the sink to take the last batch; a sink that never returns blocks it.
package events
