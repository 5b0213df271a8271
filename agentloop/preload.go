package agentloop

import (
	"context"
	"errors"
	"time"
)

// ErrNoPreload is returned by [Agent.Preload] when the model's server cannot load a model
// ahead of a request (it does not implement [Residency]).
var ErrNoPreload = errors.New("this model server cannot load a model ahead of a message")

// Preload loads model on its server the way the next run will ask for it (the same context
// size and keep-alive, from the settings), so that the first message does not wait for the
// load. The window calls it when the user picks a model and when it starts with one. It
// returns how long the load took.
func (a *Agent) Preload(ctx context.Context, model string) (time.Duration, error) {
	res, ok := a.cfg.Model.(Residency)
	if !ok {
		return 0, ErrNoPreload
	}
	settings, err := a.cfg.Store.Settings()
	if err != nil {
		return 0, err
	}
	length, err := a.cfg.Model.ContextLength(ctx, model)
	if err != nil {
		return 0, err
	}
	return res.Preload(ctx, model, numCtxFor(length, settings.ContextCap), settings.KeepAlive())
}
