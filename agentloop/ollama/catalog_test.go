package ollama

import (
	"encoding/json"
	"errors"
	"io"
	"net/http"
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
		if want[i].Name == "broken:1b" && !errors.Is(showErr, ErrModelNotFound) {
			t.Errorf("ShowErr = %v, want ErrModelNotFound", showErr)
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
