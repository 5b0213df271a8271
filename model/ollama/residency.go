package ollama

import (
	"context"
	"encoding/json"
	"io"
	"net/http"
	"strings"
	"time"
)

// RunningModel is a model the server holds in memory (/api/ps), as the server describes it.
type RunningModel struct {
	Name      string    `json:"name"`
	Model     string    `json:"model"`
	Size      int64     `json:"size"` // the memory the loaded model takes, bytes
	SizeVRAM  int64     `json:"size_vram"`
	ExpiresAt time.Time `json:"expires_at"`
	// ContextLength is the context the model was loaded with (0 when the server does not say).
	ContextLength int `json:"context_length"`
}

// Running returns the models the server holds in memory (/api/ps).
func (c *Client) Running(ctx context.Context) ([]RunningModel, error) {
	var resp struct {
		Models []RunningModel `json:"models"`
	}
	if err := c.getJSON(ctx, http.MethodGet, "/api/ps", nil, "", &resp); err != nil {
		return nil, err
	}
	return resp.Models, nil
}

// IsLoaded reports whether the server holds model in memory (/api/ps).
func (c *Client) IsLoaded(ctx context.Context, model string) (bool, error) {
	running, err := c.Running(ctx)
	if err != nil {
		return false, err
	}
	for _, m := range running {
		if SameModel(m.Name, model) || SameModel(m.Model, model) {
			return true, nil
		}
	}
	return false, nil
}

// SameModel reports whether two model names name the same model: "llama3.2" is
// "llama3.2:latest".
func SameModel(a, b string) bool {
	return a != "" && withTag(a) == withTag(b)
}

func withTag(name string) string {
	if i := strings.LastIndexByte(name, ':'); i < 0 || strings.Contains(name[i:], "/") {
		return name + ":latest"
	}
	return name
}

// Load loads model into memory, where it stays for keepAlive after this request (zero: the
// server's default), with an empty generate request: the way Ollama preloads a model. It
// returns how long the server took: its load_duration, or the request's own time when it
// reports none (as v0.11.4 does for this request). The wait is bounded by the first-byte
// timeout, as a chat's. A keepAlive of zero duration unloads the model.
//
// options should hold the num_ctx the chat requests will ask for: a runner loaded with
// another context size is loaded again by the first request that asks for its own.
func (c *Client) Load(ctx context.Context, model string, keepAlive KeepAlive, options *Options) (time.Duration, error) {
	req := struct {
		Model     string    `json:"model"`
		KeepAlive KeepAlive `json:"keep_alive,omitzero"`
		Options   *Options  `json:"options,omitempty"`
		Stream    bool      `json:"stream"`
	}{Model: model, KeepAlive: keepAlive, Options: options}
	body, err := json.Marshal(req)
	if err != nil {
		return 0, err
	}
	start := time.Now()
	r, err := c.open(ctx, http.MethodPost, "/api/generate", body, model, c.firstByte, c.idle, c.notifyFunc())
	if err != nil {
		return 0, err
	}
	defer r.Close()
	raw, err := io.ReadAll(io.LimitReader(r.Body, int64(c.maxLine)+1))
	if err != nil {
		return 0, r.Why(err)
	}
	var resp struct {
		LoadDuration int64   `json:"load_duration"`
		Error        *string `json:"error"`
	}
	if err := json.Unmarshal(raw, &resp); err != nil {
		return 0, &MalformedLineError{Line: 1, Text: snippet(raw), Err: err}
	}
	if resp.Error != nil {
		return 0, &StreamError{Message: *resp.Error, Line: 1}
	}
	if resp.LoadDuration > 0 {
		return time.Duration(resp.LoadDuration), nil
	}
	return time.Since(start), nil
}
