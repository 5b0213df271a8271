package ollama

import (
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"prototyper/model/vocab"
	"strings"
	"testing"
)

func TestCatalogListsModelsWithCapabilitiesAndContextLength(t *testing.T) {
	client, _ := newTestServer(t, func(w http.ResponseWriter, r *http.Request) {
		var req struct{ Model string }
		_ = json.NewDecoder(r.Body).Decode(&req)
		switch {
		case r.URL.Path == "/api/tags":
			_, _ = io.WriteString(w, `{"models":[{"name":"qwen3:0.6b","size":522,"details":{"parameter_size":"751.63M","family":"qwen3"}},`+
				`{"name":"broken:1b","size":1},{"name":"gemma3:1b","size":815,"details":{"family":"gemma3"}}]}`)
		case req.Model == "qwen3:0.6b":
			_, _ = io.WriteString(w, `{"capabilities":["completion","tools","thinking"],"model_info":{"general.architecture":"qwen3","qwen3.context_length":40960}}`)
		case req.Model == "gemma3:1b":
			_, _ = io.WriteString(w, `{"capabilities":["completion"],"model_info":{"general.architecture":"gemma3","gemma3.context_length":32768}}`)
		default:
			w.WriteHeader(http.StatusNotFound)
			_, _ = io.WriteString(w, `{"error":"model 'broken:1b' not found"}`)
		}
	})
	got, err := client.Catalog(testCtx(t))
	if err != nil {
		t.Fatal(err)
	}
	want := []CatalogEntry{
		{Name: "broken:1b", Size: 1},
		{Name: "gemma3:1b", Size: 815, Family: "gemma3", ContextLength: 32768},
		{Name: "qwen3:0.6b", Size: 522, ParameterSize: "751.63M", Family: "qwen3", Tools: true, Thinking: true, ContextLength: 40960},
	}
	if len(got) != len(want) {
		t.Fatalf("catalog = %+v", got)
	}
	for i := range want {
		showErr := got[i].ShowErr
		got[i].ShowErr = nil
		if got[i] != want[i] {
			t.Errorf("entry %d = %+v, want %+v", i, got[i], want[i])
		}
		if (showErr != nil) != (want[i].Name == "broken:1b") {
			t.Errorf("%s: ShowErr = %v", want[i].Name, showErr)
		}
		if want[i].Name == "broken:1b" && !errors.Is(showErr, vocab.ErrModelNotFound) {
			t.Errorf("ShowErr = %v, want vocab.ErrModelNotFound", showErr)
		}
	}
	raw, _ := json.Marshal(got[2])
	if string(raw) != `{"name":"qwen3:0.6b","size":522,"parameterSize":"751.63M","family":"qwen3","tools":true,"thinking":true,"contextLength":40960}` {
		t.Errorf("JSON = %s", raw)
	}
}

func TestCatalogFailsWhenTheListFails(t *testing.T) {
	client, _ := newTestServer(t, func(w http.ResponseWriter, r *http.Request) {
		w.WriteHeader(http.StatusBadRequest)
		_, _ = io.WriteString(w, `{"error":"no"}`)
	})
	if got, err := client.Catalog(testCtx(t)); err == nil {
		t.Errorf("catalog = %+v, want an error", got)
	}
}

func TestListReturnsModelsSortedByName(t *testing.T) {
	c, _ := newTestServer(t, func(w http.ResponseWriter, r *http.Request) {
		if r.Method != http.MethodGet || r.URL.Path != "/api/tags" {
			t.Errorf("request = %s %s", r.Method, r.URL.Path)
		}
		_, _ = io.WriteString(w, `{"models":[
			{"name":"qwen3:0.6b","model":"qwen3:0.6b","size":522653767,"digest":"7df6b6e09427","modified_at":"2025-08-01T10:00:00Z","details":{"family":"qwen3","parameter_size":"751.63M","quantization_level":"Q4_K_M"}},
			{"name":"gemma3:1b","model":"gemma3:1b","size":815319791,"digest":"8648f39daa8f","modified_at":"2025-07-01T10:00:00Z","details":{"family":"gemma3"}}]}`)
	})
	models, err := c.List(testCtx(t))
	if err != nil {
		t.Fatal(err)
	}
	if len(models) != 2 || models[0].Name != "gemma3:1b" || models[1].Name != "qwen3:0.6b" {
		t.Fatalf("models = %+v", models)
	}
	q := models[1]
	if q.Size != 522653767 || q.Family != "qwen3" || q.ParameterSize != "751.63M" || q.QuantizationLevel != "Q4_K_M" || q.ModifiedAt.IsZero() {
		t.Errorf("qwen3 = %+v", q)
	}
}

func TestShowReadsCapabilitiesContextLengthAndTemplate(t *testing.T) {
	c, _ := newTestServer(t, func(w http.ResponseWriter, r *http.Request) {
		var req struct{ Model string }
		_ = json.NewDecoder(r.Body).Decode(&req)
		switch req.Model {
		case "qwen3:0.6b":
			_, _ = io.WriteString(w, `{"template":"{{ .Prompt }}","parameters":"num_ctx                        8192\nstop \"<|im_end|>\"",
				"capabilities":["completion","tools","thinking"],
				"model_info":{"general.architecture":"qwen3","qwen3.context_length":40960,"qwen3.embedding_length":1024},
				"details":{"family":"qwen3","parameter_size":"751.63M","quantization_level":"Q4_K_M"}}`)
		case "odd":
			_, _ = io.WriteString(w, `{"capabilities":["completion"],"model_info":{"llama.context_length":2048}}`)
		default:
			w.WriteHeader(http.StatusNotFound)
			_, _ = io.WriteString(w, `{"error":"model '`+req.Model+`' not found"}`)
		}
	})
	info, err := c.Show(testCtx(t), "qwen3:0.6b")
	if err != nil {
		t.Fatal(err)
	}
	if !info.Has("tools") || !info.Has("thinking") || info.Has("vision") {
		t.Errorf("capabilities = %v", info.Capabilities)
	}
	if info.ContextLength != 40960 || info.NumCtx != 8192 || !info.HasTemplate || info.Architecture != "qwen3" || info.Family != "qwen3" {
		t.Errorf("info = %+v", info)
	}
	odd, err := c.Show(testCtx(t), "odd")
	if err != nil || odd.ContextLength != 2048 || odd.HasTemplate {
		t.Errorf("odd = %+v, %v; want the context length of any *.context_length key, no template", odd, err)
	}
	_, err = c.Show(testCtx(t), "nope")
	if !errors.Is(err, vocab.ErrModelNotFound) || !strings.Contains(err.Error(), "prototyper pull nope") {
		t.Errorf("err = %v, want vocab.ErrModelNotFound suggesting a pull", err)
	}
}

func TestVersion(t *testing.T) {
	c, _ := newTestServer(t, func(w http.ResponseWriter, r *http.Request) {
		_, _ = io.WriteString(w, `{"version":"0.11.4"}`)
	})
	if v, err := c.Version(testCtx(t)); err != nil || v != "0.11.4" {
		t.Fatalf("version = %q, %v", v, err)
	}
}
