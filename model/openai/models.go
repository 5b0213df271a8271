package openai

import (
	"context"
	"encoding/json"
	"io"
	"net/http"
	"sort"
)

// Model is one model the server lists.
type Model struct {
	ID string `json:"id"`
	// ContextLength is the model's context in tokens, when the server says (vLLM's
	// max_model_len, llama.cpp's n_ctx_train, LM Studio's context_length); 0 otherwise.
	ContextLength int `json:"contextLength"`
}

// Models lists the server's models (/v1/models), sorted by id.
func (c *Client) Models(ctx context.Context) ([]Model, error) {
	s, err := c.open(ctx, http.MethodGet, modelsPath, nil, "", c.metadata, nil)
	if err != nil {
		return nil, err
	}
	defer s.Close()
	raw, err := io.ReadAll(io.LimitReader(s.Body, int64(c.maxLine)+1))
	if err != nil {
		return nil, s.Why(err)
	}
	var list struct {
		Data []struct {
			ID            string `json:"id"`
			MaxModelLen   int    `json:"max_model_len"`
			ContextLength int    `json:"context_length"`
			Meta          struct {
				NCtxTrain int `json:"n_ctx_train"`
			} `json:"meta"`
		} `json:"data"`
	}
	if err := json.Unmarshal(raw, &list); err != nil {
		return nil, &MalformedError{Text: snippet(raw, 80), Err: err}
	}
	out := make([]Model, 0, len(list.Data))
	for _, m := range list.Data {
		out = append(out, Model{ID: m.ID, ContextLength: max(m.MaxModelLen, m.ContextLength, m.Meta.NCtxTrain)})
	}
	sort.Slice(out, func(i, j int) bool { return out[i].ID < out[j].ID })
	return out, nil
}
