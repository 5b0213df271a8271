package ollama

import (
	"context"
	"net/http"
	"sort"
	"strconv"
	"strings"
	"time"
)

// List returns the models on the server (/api/tags), sorted by name.
func (c *Client) List(ctx context.Context) ([]ModelSummary, error) {
	var resp struct {
		Models []struct {
			Name       string    `json:"name"`
			Model      string    `json:"model"`
			Size       int64     `json:"size"`
			Digest     string    `json:"digest"`
			ModifiedAt time.Time `json:"modified_at"`
			Details    struct {
				Family            string `json:"family"`
				ParameterSize     string `json:"parameter_size"`
				QuantizationLevel string `json:"quantization_level"`
			} `json:"details"`
		} `json:"models"`
	}
	if err := c.getJSON(ctx, http.MethodGet, "/api/tags", nil, "", &resp); err != nil {
		return nil, err
	}
	out := make([]ModelSummary, 0, len(resp.Models))
	for _, m := range resp.Models {
		out = append(out, ModelSummary{
			Name: m.Name, Model: m.Model, Size: m.Size, Digest: m.Digest, ModifiedAt: m.ModifiedAt,
			Family: m.Details.Family, ParameterSize: m.Details.ParameterSize, QuantizationLevel: m.Details.QuantizationLevel,
		})
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Name < out[j].Name })
	return out, nil
}

// Show describes one model (/api/show): its capabilities, context length and template.
// A model the server does not have is a [vocab.ErrModelNotFound] error.
func (c *Client) Show(ctx context.Context, name string) (*ModelInfo, error) {
	var resp struct {
		Template     string         `json:"template"`
		Parameters   string         `json:"parameters"`
		Capabilities []string       `json:"capabilities"`
		ModelInfo    map[string]any `json:"model_info"`
		Details      struct {
			Family            string `json:"family"`
			ParameterSize     string `json:"parameter_size"`
			QuantizationLevel string `json:"quantization_level"`
		} `json:"details"`
	}
	req := struct {
		Model string `json:"model"`
	}{name}
	if err := c.getJSON(ctx, http.MethodPost, "/api/show", req, name, &resp); err != nil {
		return nil, err
	}
	info := &ModelInfo{
		Name:              name,
		Capabilities:      resp.Capabilities,
		HasTemplate:       strings.TrimSpace(resp.Template) != "",
		Family:            resp.Details.Family,
		ParameterSize:     resp.Details.ParameterSize,
		QuantizationLevel: resp.Details.QuantizationLevel,
		NumCtx:            parameterInt(resp.Parameters, "num_ctx"),
	}
	info.Architecture, _ = resp.ModelInfo["general.architecture"].(string)
	info.ContextLength = contextLength(resp.ModelInfo, info.Architecture)
	info.KVBytesPerToken = kvBytesPerToken(resp.ModelInfo, info.Architecture)
	return info, nil
}

// kvBytesPerToken is the KV cache of one token: for every layer, a key and a value of each
// key-value head, 2 bytes an element. A head's width is the key or value length model_info
// gives, else the embedding over the heads; a count given per layer (an array) is not read.
func kvBytesPerToken(mi map[string]any, arch string) int64 {
	num := func(key string) int64 {
		v, _ := mi[arch+"."+key].(float64)
		return int64(v)
	}
	layers, heads, kvHeads, embd := num("block_count"), num("attention.head_count"), num("attention.head_count_kv"), num("embedding_length")
	if kvHeads == 0 {
		kvHeads = heads
	}
	keyLen, valueLen := num("attention.key_length"), num("attention.value_length")
	if heads > 0 && keyLen == 0 {
		keyLen = embd / heads
	}
	if valueLen == 0 {
		valueLen = keyLen
	}
	return layers * kvHeads * (keyLen + valueLen) * 2
}

// contextLength reads "<arch>.context_length", else any "*.context_length" key.
func contextLength(mi map[string]any, arch string) int {
	if v, ok := mi[arch+".context_length"].(float64); ok && arch != "" {
		return int(v)
	}
	keys := make([]string, 0, len(mi))
	for k := range mi {
		if strings.HasSuffix(k, ".context_length") {
			keys = append(keys, k)
		}
	}
	sort.Strings(keys)
	for _, k := range keys {
		if v, ok := mi[k].(float64); ok {
			return int(v)
		}
	}
	return 0
}

// parameterInt finds "name value" in a Modelfile's parameters text.
func parameterInt(params, name string) int {
	for _, line := range strings.Split(params, "\n") {
		f := strings.Fields(line)
		if len(f) == 2 && f[0] == name {
			if n, err := strconv.Atoi(f[1]); err == nil {
				return n
			}
		}
	}
	return 0
}

// Version returns the server's version, e.g. "0.11.4".
func (c *Client) Version(ctx context.Context) (string, error) {
	var resp struct {
		Version string `json:"version"`
	}
	if err := c.getJSON(ctx, http.MethodGet, "/api/version", nil, "", &resp); err != nil {
		return "", err
	}
	return resp.Version, nil
}
