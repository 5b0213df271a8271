// Package wailssink delivers the bridge's batches to the desktop window: one Wails event
// "agent:batch" per batch, its data the batch as a JSON array of envelopes. Besides package
// main (main.go, app.go, app_lifecycle.go) it is the only code that imports Wails, so that
// package events and its tests need no window.
//
// The window acknowledges a batch by calling App.Painted, which app.go forwards to
// [events.Bridge.Painted].
package wailssink

import (
	"context"

	"github.com/wailsapp/wails/v2/pkg/runtime"

	"prototyper/events"
)

// EventName is the Wails event every batch is emitted as; the frontend listens with
// EventsOn("agent:batch", (batch) => …).
const EventName = "agent:batch"

// Sink emits batches to the window of the Wails context it was made with.
type Sink struct {
	ctx  context.Context
	emit func(ctx context.Context, name string, data ...any) // runtime.EventsEmit; replaced in tests
}

// New returns the sink for the window of ctx, which must be the context Wails passed to the
// app's OnStartup (runtime calls with any other context end the process).
func New(ctx context.Context) *Sink { return &Sink{ctx: ctx, emit: runtime.EventsEmit} }

// Deliver emits the batch as one "agent:batch" event. Wails encodes it to JSON before
// returning, so the sink keeps no reference to it.
func (s *Sink) Deliver(batch []events.Event) error {
	s.emit(s.ctx, EventName, batch)
	return nil
}
