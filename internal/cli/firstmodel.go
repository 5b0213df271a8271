package cli

import (
	"context"
	"errors"
	"fmt"
	"time"

	"prototyper/agentloop"
	"prototyper/model/ollama"
	"prototyper/model/vocab"
)

// noModelError is err, unless it says no model was chosen and the server has no model at all:
// then it is the sentence that names the command pulling the recommended starter model.
func noModelError(ctx context.Context, client *ollama.Client, err error) error {
	if !errors.Is(err, agentloop.ErrNoModel) {
		return err
	}
	ctx, cancel := context.WithTimeout(ctx, 5*time.Second)
	defer cancel()
	list, listErr := client.With(ollama.WithRetry(1, 0)).List(ctx)
	switch ollama.Code(listErr) {
	case vocab.CodeNotRunning, vocab.CodeNetwork:
		return listErr // no server: that comes before a model
	}
	if listErr != nil || len(list) > 0 {
		return err
	}
	m := ollama.RecommendedModel()
	return fmt.Errorf("no model chosen, and the Ollama server has none yet: pull the recommended one with `prototyper pull %s` (about %s), then run again with --model %s",
		m.Name, humanBytes(m.Size), m.Name)
}
