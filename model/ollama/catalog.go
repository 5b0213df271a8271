package ollama

import (
	"context"
	"sync"
)

// CatalogEntry is one model of the server as the model picker and `prototyper models` show
// it: what /api/tags lists, with the capabilities and the context length /api/show gives.
type CatalogEntry struct {
	Name          string `json:"name"`
	Size          int64  `json:"size"`
	ParameterSize string `json:"parameterSize"`
	Family        string `json:"family"`
	Tools         bool   `json:"tools"`
	Thinking      bool   `json:"thinking"`
	ContextLength int    `json:"contextLength"`
	// Vision: the model reads images sent with a message.
	Vision bool `json:"vision,omitempty"`
	// ShowErr is why /api/show could not describe the model; Tools, Thinking and
	// ContextLength are then unknown (left zero).
	ShowErr error `json:"-"`
}

// catalogShows bounds the /api/show requests of one [Client.Catalog] in flight at once.
const catalogShows = 8

// Catalog lists the server's models (sorted by name) with their capabilities and context
// length, asking /api/show about them in parallel. A model /api/show cannot describe is
// still listed, with its ShowErr set; only a failed /api/tags, or ctx ending, is an error.
func (c *Client) Catalog(ctx context.Context) ([]CatalogEntry, error) {
	list, err := c.List(ctx)
	if err != nil {
		return nil, err
	}
	out := make([]CatalogEntry, len(list))
	slots := make(chan struct{}, catalogShows)
	var wg sync.WaitGroup
	for i, m := range list {
		out[i] = CatalogEntry{Name: m.Name, Size: m.Size, ParameterSize: m.ParameterSize, Family: m.Family}
		wg.Add(1)
		go func() {
			defer wg.Done()
			slots <- struct{}{}
			defer func() { <-slots }()
			info, err := c.Show(ctx, m.Name)
			if err != nil {
				out[i].ShowErr = err
				return
			}
			out[i].Tools, out[i].Thinking, out[i].Vision = info.Has(CapabilityTools), info.Has(CapabilityThinking), info.Has(CapabilityVision)
			out[i].ContextLength = info.ContextLength
		}()
	}
	wg.Wait()
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	return out, nil
}
