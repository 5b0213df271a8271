package events

import "errors"

// Errors of the bridge, for errors.Is.
var (
	// ErrDelivery is returned by [Bridge.Close] when a sink failed to deliver at least one
	// batch; the sink's own error is wrapped beside it.
	ErrDelivery = errors.New("events could not be delivered to the sink")

	// ErrBridgeLog is returned by [NewBridge] when the bridge log (PROTOTYPER_BRIDGE_LOG or
	// [WithLogFile]) cannot be opened for appending.
	ErrBridgeLog = errors.New("the bridge log cannot be opened: point PROTOTYPER_BRIDGE_LOG at a writable file, or unset it")
)
