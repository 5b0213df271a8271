package events

// Sink delivers batches of events to whoever watches: the window, a terminal, a test.
//
// The [Bridge] calls Deliver from its own goroutine, one batch at a time, in seq order; a
// slow Deliver delays the next batch, never the agent loop. The batch is the sink's to keep.
// A sink does not acknowledge through its return value: the window's acknowledgement comes
// later through [Bridge.Painted]. A sink whose delivery is its paint (a terminal has shown a
// batch once it has written it) says so by implementing [PaintsOnDelivery]; wrap any sink with
// [AckOnDelivery] to get that.
type Sink interface {
	// Deliver hands one batch over. An error is recorded (see [Bridge.Close]); the bridge
	// then stops waiting for that batch's acknowledgement.
	Deliver(batch []Event) error
}

// SinkFunc adapts a function to a [Sink].
type SinkFunc func(batch []Event) error

// Deliver calls f(batch).
func (f SinkFunc) Deliver(batch []Event) error { return f(batch) }

// PaintsOnDelivery is implemented by a sink that has shown a batch by the time Deliver returns
// nil. The bridge acknowledges such a batch itself, reporting the batch's running tool calls
// as painted, so the next batch goes at once.
type PaintsOnDelivery interface {
	Sink
	// PaintsOnDelivery reports whether a nil return of Deliver means the batch was shown.
	PaintsOnDelivery() bool
}

// AckOnDelivery returns s as a sink whose delivery counts as its acknowledgement: what a
// terminal renderer wants (`prototyper run` plugs its human-readable output in this way).
func AckOnDelivery(s Sink) Sink { return ackOnDelivery{s} }

type ackOnDelivery struct{ Sink }

func (ackOnDelivery) PaintsOnDelivery() bool { return true }

// paintsOnDelivery reports whether s acknowledges its own deliveries.
func paintsOnDelivery(s Sink) bool {
	p, ok := s.(PaintsOnDelivery)
	return ok && p.PaintsOnDelivery()
}
