// Package events carries what the agent does to whoever watches: the event envelope
// ([Event]), the [Bridge] that coalesces deltas and paces batches by paint acknowledgements,
// and the sinks that deliver batches (the Wails window, a terminal, a test recorder).
package events
