package desktop

import (
	"context"
	"errors"
	"path/filepath"
	"sync"
	"time"

	"prototyper/model/managed"
	"prototyper/model/ollama"
	"prototyper/model/vocab"
	"prototyper/store"
)

// ServerStart is what the window shows of the Ollama server it starts itself: whether the
// server answering is that one ("Ollama (started by Prototyper)"), or why none could start.
type ServerStart struct {
	// StartedByApp: the server answering is the one Prototyper started; it stops it when it
	// quits.
	StartedByApp bool `json:"startedByApp"`
	// StartError: why Prototyper could not start a server, one sentence (ending with the
	// last line of the server's log when it ran); "" when it did not try or succeeded.
	StartError string `json:"startError,omitempty"`
	// LogPath: the log of the server Prototyper started, or tried to.
	LogPath string `json:"logPath,omitempty"`
}

// newManagedServer is the server the window starts, its log beside the database.
func newManagedServer(db *store.DB) *managed.Server {
	return managed.New(managed.Options{LogDir: filepath.Dir(db.Path())})
}

// ensureOllama starts an Ollama server when nothing answers at raw, the address is local
// and the settings let the window start one (see [managed.Server.Ensure]); a user's server,
// and a remote address, are left as they are.
func (d *Desktop) ensureOllama(ctx context.Context, raw string) ServerStart {
	settings, err := d.db.Settings()
	if err != nil || !settings.StartsOllama() {
		return ServerStart{}
	}
	u, err := ollama.ResolveHost(raw)
	if err != nil {
		return ServerStart{}
	}
	state, err := d.serve.Ensure(ctx, u, settings.OllamaBinary)
	switch {
	case errors.Is(err, managed.ErrNotLocal):
		return ServerStart{}
	case err != nil:
		var se *managed.StartError
		if errors.As(err, &se) {
			return ServerStart{StartError: err.Error(), LogPath: se.LogPath}
		}
		return ServerStart{StartError: err.Error()}
	}
	return ServerStart{StartedByApp: state.Started, LogPath: state.LogPath}
}

// askVersion asks the server for its version once, waiting at most 5 s: a server that is not
// there says so at once, rather than after the retries a run would make.
func askVersion(ctx context.Context, client *ollama.Client) (string, error) {
	ctx, cancel := context.WithTimeout(ctx, 5*time.Second)
	defer cancel()
	return client.With(ollama.WithRetry(1, 0)).Version(ctx)
}

// loadNotThereYet loads model on the server once (waiting at most preloadWait) and reports
// whether it should be asked again later because the server does not answer yet, or does not
// have the model yet. The server is asked for its version first, once, so that one that is
// not there says so at once rather than after the retries of a request.
func (d *Desktop) loadNotThereYet(model string) bool {
	ctx, cancel := context.WithTimeout(d.life, preloadWait)
	defer cancel()
	if d.server.OpenAI() == nil {
		client, _ := d.server.Client()
		if _, err := askVersion(ctx, client); err != nil {
			return ctx.Err() == nil
		}
	}
	_, err := d.agent.Preload(ctx, model)
	return ctx.Err() == nil && notThereYet(err)
}

// notThereYet reports whether err says that the server, or the model on it, is not there
// (yet): the user may start the one or pull the other at any time.
func notThereYet(err error) bool {
	switch ollama.Code(err) {
	case vocab.CodeNotRunning, vocab.CodeNetwork, vocab.CodeModelNotFound:
		return true
	}
	return false
}

// wakeup wakes every goroutine waiting on it; its zero value is ready to use.
type wakeup struct {
	mu sync.Mutex
	ch chan struct{}
}

// wait returns a channel closed by the next wake.
func (w *wakeup) wait() <-chan struct{} {
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.ch == nil {
		w.ch = make(chan struct{})
	}
	return w.ch
}

// wake closes the channel of every wait so far.
func (w *wakeup) wake() {
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.ch != nil {
		close(w.ch)
		w.ch = nil
	}
}
