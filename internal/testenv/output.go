package testenv

import (
	"bytes"
	"sync"
)

// Output collects what a process under test writes (its stdout and stderr, or a server's log);
// it is safe for concurrent use, so a test can read it while the process writes.
type Output struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

func (o *Output) Write(p []byte) (int, error) {
	o.mu.Lock()
	defer o.mu.Unlock()
	return o.buf.Write(p)
}

// String returns everything written so far.
func (o *Output) String() string {
	o.mu.Lock()
	defer o.mu.Unlock()
	return o.buf.String()
}

// Len is how many bytes were written so far: a mark for [Output.Since].
func (o *Output) Len() int {
	o.mu.Lock()
	defer o.mu.Unlock()
	return o.buf.Len()
}

// Since returns what was written after offset mark, at most its last max bytes.
func (o *Output) Since(mark, max int) string {
	o.mu.Lock()
	defer o.mu.Unlock()
	b := o.buf.Bytes()[mark:]
	if len(b) > max {
		return "…" + string(b[len(b)-max:])
	}
	return string(b)
}

// Tail returns the last max bytes written.
func (o *Output) Tail(max int) string { return o.Since(0, max) }
