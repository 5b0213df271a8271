package ollama

import (
	"context"
	"encoding/json"
	"net/http"
)

// Pull downloads a model (/api/pull), calling fn for every progress line. It returns nil
// only when the server reported "success"; an {"error":…} line is a [StreamError] (an
// unknown model shows up this way), or a [RegistryUnreachableError] when the server could not
// reach the registry; a stream that ends earlier is a [vocab.ErrIncompleteStream].
func (c *Client) Pull(ctx context.Context, name string, fn PullFunc) error {
	if fn == nil {
		fn = func(PullProgress) error { return nil }
	}
	body, err := json.Marshal(struct {
		Model  string `json:"model"`
		Stream bool   `json:"stream"`
	}{name, true})
	if err != nil {
		return err
	}
	r, err := c.open(ctx, http.MethodPost, "/api/pull", body, name, c.firstByte, c.pullIdle, c.notifyFunc())
	if err != nil {
		return err
	}
	defer r.Close()
	lr := newLineReader(r.Body, c.maxLine)
	for {
		line, err := lr.next()
		if err != nil {
			return streamEnd(err, lr.n, r.Why)
		}
		r.LineArrived()
		var p struct {
			PullProgress
			Error *string `json:"error"`
		}
		if err := json.Unmarshal(line, &p); err != nil {
			return &MalformedLineError{Line: lr.n, Text: snippet(line), Err: err}
		}
		if p.Error != nil {
			return pullError(name, *p.Error, lr.n)
		}
		if err := fn(p.PullProgress); err != nil {
			return err
		}
		if p.Status == "success" {
			return nil
		}
	}
}
