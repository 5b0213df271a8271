package agentloop

import (
	"context"
	"sync"
	"time"

	"prototyper/events"
	"prototyper/model"
)

// LoadingNotice is how long a model request goes without a first byte before the
// model.loading event tells the user that the server is probably loading the model, when
// the server cannot say whether it is loaded.
const LoadingNotice = time.Second

// residencyWait bounds the question whether the model is loaded, asked with each request.
const residencyWait = 2 * time.Second

// residencyAhead is how long a request waits for the server's word on the model before it
// goes. A request that reaches the server first starts the load, and the server then lists
// the model as loaded while it loads it, so the notice would never come; a local server
// answers within a millisecond, and a slow one delays the request by this much at most (a
// variable: a test lengthens it to show a request that does not wait).
var residencyAhead = 100 * time.Millisecond

// residencyAnswer is the server's word on whether a model is loaded ([model.Residency]),
// asked as a message is admitted, so that its run's first request need not wait for it: the
// question overlaps opening the workspace and committing the message.
type residencyAnswer struct {
	model         string
	done          chan struct{} // closed once loaded and known are set
	loaded, known bool
}

// askResidency asks the server, in the background and within ctx, whether modelName is
// loaded; nil when the server cannot say.
func (a *Agent) askResidency(ctx context.Context, modelName string) *residencyAnswer {
	res, ok := a.cfg.Model.(model.Residency)
	if !ok {
		return nil
	}
	ans := &residencyAnswer{model: modelName, done: make(chan struct{})}
	go func() {
		defer close(ans.done)
		ctx, cancel := context.WithTimeout(ctx, residencyWait)
		defer cancel()
		ans.loaded, ans.known = res.Loaded(ctx, modelName)
	}()
	return ans
}

// wait returns the answer, or known false when ctx ends first.
func (ans *residencyAnswer) wait(ctx context.Context) (loaded, known bool) {
	select {
	case <-ans.done:
		return ans.loaded, ans.known
	case <-ctx.Done():
		return false, false
	}
}

// lastAnswer is the model that answered last, with the context it was asked for, and when:
// it stays loaded until its keep-alive ends, unless another model's load pushed it out, so a
// request to it does not wait for the server's word; should the server say otherwise too late
// (the request already loading it), the wait for the first byte announces the load.
type lastAnswer struct {
	mu     sync.Mutex
	model  string
	numCtx int
	at     time.Time
}

// note records that modelName answered (or was loaded) with numCtx just now.
func (l *lastAnswer) note(modelName string, numCtx int) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.model, l.numCtx, l.at = modelName, numCtx, time.Now()
}

// loaded reports whether modelName answered last, with numCtx (another context reloads it),
// within half of keepAlive (negative: for ever).
func (l *lastAnswer) loaded(modelName string, numCtx int, keepAlive time.Duration) bool {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.at.IsZero() || l.model != modelName || l.numCtx != numCtx {
		return false
	}
	return keepAlive < 0 || time.Since(l.at) < keepAlive/2
}

// loadWatch announces a model being loaded for a request: model.loading at once when the
// server says the model is not in memory (/api/ps), else once the request got no first
// byte within LoadingNotice; then, when the answer ends, model.loaded with the load time
// the server reports (load_duration), or the wait for the first byte when it reports none.
//
// The server is asked just before the request (for a run's first request, as its message was
// admitted), which waits for its reply for residencyAhead at most, unless the model answered
// last a moment ago (lastAnswer); a later reply still comes before the answer's first byte,
// which waits for it, so model.loading precedes the answer.
type loadWatch struct {
	r     *run
	model string
	start time.Time
	known chan struct{} // closed once the server said whether the model is loaded, or could not

	mu        sync.Mutex
	timer     *time.Timer   // set when the server could not say
	announced bool          // model.loading went out
	over      bool          // the first byte came, or the request ended
	waited    time.Duration // from the request to its first byte
}

func (r *run) watchLoad(modelName string, numCtx int) *loadWatch {
	w := &loadWatch{r: r, model: modelName, start: time.Now(), known: make(chan struct{})}
	ans := r.residency
	r.residency = nil // asked for the run's first request only
	if ans == nil || ans.model != modelName {
		ans = r.a.askResidency(r.ctx, modelName)
	}
	if ans == nil {
		w.timer = time.AfterFunc(LoadingNotice, w.announce)
		close(w.known)
		return w
	}
	go func() {
		defer close(w.known)
		loaded, known := ans.wait(r.ctx)
		w.mu.Lock()
		defer w.mu.Unlock()
		switch {
		case !known && !w.over && w.timer == nil:
			w.timer = time.AfterFunc(max(0, LoadingNotice-time.Since(w.start)), w.announce)
		case known && !loaded:
			w.announceLocked()
		case known && w.timer != nil:
			// the server lists the model (asked before the request left): a slow answer is
			// not a load, whatever timer the model's last answer armed
			w.timer.Stop()
		}
	}()
	if r.a.lastAnswer.loaded(modelName, numCtx, r.keepAlive) {
		w.mu.Lock()
		if !w.over && w.timer == nil {
			w.timer = time.AfterFunc(LoadingNotice, w.announce)
		}
		w.mu.Unlock()
		return w
	}
	ahead := time.NewTimer(residencyAhead)
	defer ahead.Stop()
	select {
	case <-w.known:
	case <-ahead.C:
	}
	return w
}

func (w *loadWatch) announce() {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.announceLocked()
}

func (w *loadWatch) announceLocked() {
	if !w.over && !w.announced {
		w.announced = true
		w.r.emit(events.Event{Type: events.ModelLoading, Model: w.model})
	}
}

// arrived ends the wait: the answer started. It first waits for the server's word on the
// model (if it is still on its way), so that a load is announced before the answer.
func (w *loadWatch) arrived() {
	<-w.known
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.over {
		return
	}
	w.over, w.waited = true, time.Since(w.start)
	if w.timer != nil {
		w.timer.Stop()
	}
}

// loaded says, at the end of an answer after a model.loading, how long the load took: the
// server's own figure when it gave one.
func (w *loadWatch) loaded(reported time.Duration) {
	w.mu.Lock()
	defer w.mu.Unlock()
	if !w.announced {
		return
	}
	w.announced = false
	ms := w.waited.Milliseconds()
	if reported > 0 {
		ms = reported.Milliseconds()
	}
	w.r.emit(events.Event{Type: events.ModelLoaded, Model: w.model, LoadMs: &ms})
}

// stop ends the wait without an answer (the request failed or was stopped).
func (w *loadWatch) stop() {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.over = true
	if w.timer != nil {
		w.timer.Stop()
	}
}
