package ollama

import (
	"context"
	"fmt"
	"strings"
	"sync"
	"time"
)

// PullInterval is the least time between two progress reports of a pull that
// [ThrottlePull] passes on (a change of status and a finished layer always pass).
const PullInterval = 100 * time.Millisecond

// ThrottlePull returns a [PullFunc] that passes to fn at most one progress report per
// [PullInterval], and every report that changes the status or finishes a layer, so that a
// screen redraws at most ten times a second and still sees every step. The window's pulls
// and `prototyper pull` on a terminal go through it.
func ThrottlePull(fn PullFunc) PullFunc { return throttlePull(fn, PullInterval, time.Now) }

func throttlePull(fn PullFunc, every time.Duration, now func() time.Time) PullFunc {
	if fn == nil {
		return func(PullProgress) error { return nil }
	}
	var last time.Time
	var lastStatus string
	first := true
	return func(p PullProgress) error {
		t := now()
		finished := p.Total > 0 && p.Completed == p.Total
		if !first && p.Status == lastStatus && t.Sub(last) < every && !finished {
			return nil
		}
		first, last, lastStatus = false, t, p.Status
		return fn(p)
	}
}

// PullRunningError is returned by [Pulls.Pull] for a model that is already being pulled.
type PullRunningError struct{ Model string }

func (e *PullRunningError) Error() string { return e.Model + " is already being pulled" }

// Pulls runs the pulls of one app: at most one per model at a time, each reporting through
// [ThrottlePull], all of them stopped by [Pulls.Close]. The zero Pulls is ready to use.
type Pulls struct {
	mu      sync.Mutex
	running map[string]context.CancelFunc
	closed  bool
}

// Pull pulls the model name through client, calling fn with its throttled progress, and
// returns when the pull ends: nil once the server reported success. The name is trimmed;
// an empty one, a model already being pulled and a closed Pulls are refused at once.
func (p *Pulls) Pull(ctx context.Context, client *Client, name string, fn PullFunc) error {
	name = strings.TrimSpace(name)
	if name == "" {
		return fmt.Errorf("name the model to pull, e.g. qwen3:4b")
	}
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	p.mu.Lock()
	switch _, busy := p.running[name]; {
	case p.closed:
		p.mu.Unlock()
		return context.Canceled
	case busy:
		p.mu.Unlock()
		return &PullRunningError{Model: name}
	}
	if p.running == nil {
		p.running = map[string]context.CancelFunc{}
	}
	p.running[name] = cancel
	p.mu.Unlock()
	defer func() {
		p.mu.Lock()
		delete(p.running, name)
		p.mu.Unlock()
	}()
	return client.Pull(ctx, name, ThrottlePull(fn))
}

// Close stops every pull in progress; each Pull then returns its context's error. Pulls
// started after Close are refused.
func (p *Pulls) Close() {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.closed = true
	for _, cancel := range p.running {
		cancel()
	}
}
