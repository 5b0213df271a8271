package agentloop

import (
	"context"
	"prototyper/model"
	"time"
)

// Preload loads model on its server the way the next run will ask for it (the same context
// size and keep-alive, from the settings), so that the first message does not wait for the
// load. The window calls it when the user picks a model and when it starts with one. It
// returns how long the load took.
func (a *Agent) Preload(ctx context.Context, modelName string) (time.Duration, error) {
	res, ok := a.cfg.Model.(model.Residency)
	if !ok {
		return 0, model.ErrNoPreload
	}
	settings, err := a.cfg.Store.Settings()
	if err != nil {
		return 0, err
	}
	length, err := a.cfg.Model.ContextLength(ctx, modelName)
	if err != nil {
		return 0, err
	}
	numCtx, _ := a.contextSize(ctx, modelName, length, settings.ContextCap)
	took, err := res.Preload(ctx, modelName, numCtx, settings.KeepAlive())
	if err == nil {
		a.lastAnswer.note(modelName, numCtx)
	}
	return took, err
}
