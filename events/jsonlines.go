package events

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"sync"
)

// JSONLines is the sink of `prototyper run --json`: every event as one JSON object on its own
// line, the envelope's fields and the payload's side by side. A batch is written with one
// Write, and counts as painted once written.
type JSONLines struct {
	mu  sync.Mutex
	w   io.Writer
	buf bytes.Buffer
}

// NewJSONLines returns a sink writing to w.
func NewJSONLines(w io.Writer) *JSONLines { return &JSONLines{w: w} }

// Deliver writes one line per event of batch.
func (s *JSONLines) Deliver(batch []Event) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.buf.Reset()
	enc := json.NewEncoder(&s.buf)
	enc.SetEscapeHTML(false)
	for i := range batch {
		if err := enc.Encode(&batch[i]); err != nil { // Encode ends each object with '\n'
			return fmt.Errorf("encode event %d (%s): %w", batch[i].Seq, batch[i].Type, err)
		}
	}
	if _, err := s.w.Write(s.buf.Bytes()); err != nil {
		return fmt.Errorf("write events: %w", err)
	}
	return nil
}

// PaintsOnDelivery reports true: a written line has been shown.
func (s *JSONLines) PaintsOnDelivery() bool { return true }
