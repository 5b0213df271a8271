package model

import (
	"context"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"testing"

	"prototyper/internal/ollamatest"
	"prototyper/model/ollama"
)

// qwenLikeServer stands in for an Ollama server holding a 2.5 GB model with qwen3:4b's
// geometry (36 layers, 8 key-value heads of 128: 144 KiB of KV cache a token), loaded or not.
func qwenLikeServer(t *testing.T, loadedBytes int64) *Ollama {
	t.Helper()
	ps := `{"models":[]}`
	if loadedBytes > 0 {
		ps = `{"models":[{"name":"qwen3:4b","model":"qwen3:4b","size":` + strconv.FormatInt(loadedBytes, 10) + `}]}`
	}
	base := ollamatest.Serve(t, ollamatest.Routes{
		"/api/show": func(w http.ResponseWriter, r *http.Request) {
			w.Write([]byte(`{"capabilities":["completion","tools"],"model_info":{"general.architecture":"qwen3",
				"qwen3.context_length":40960,"qwen3.block_count":36,"qwen3.embedding_length":2560,
				"qwen3.attention.head_count":32,"qwen3.attention.head_count_kv":8,"qwen3.attention.key_length":128,
				"qwen3.attention.value_length":128}}`))
		},
		"/api/tags": func(w http.ResponseWriter, r *http.Request) {
			w.Write([]byte(`{"models":[{"name":"qwen3:4b","model":"qwen3:4b","size":2500000000}]}`))
		},
		"/api/ps": func(w http.ResponseWriter, r *http.Request) { w.Write([]byte(ps)) },
	})
	u, _ := url.Parse(base)
	return NewOllama(ollama.New(u))
}

// withMemory gives the test a machine with available bytes free.
func withMemory(t *testing.T, available int64) {
	old := machineMemory
	machineMemory = func() ollama.Memory { return ollama.Memory{Total: 2 * available, Available: available} }
	t.Cleanup(func() { machineMemory = old })
}

func TestTheContextIsWhatTheMachinesFreeMemoryHoldsAndIsHeldForTheModel(t *testing.T) {
	const gib = 1 << 30
	withMemory(t, 5*gib)
	m := qwenLikeServer(t, 0)
	n, why := m.FitContext(context.Background(), "qwen3:4b", 16384)
	if n != 8192 || !strings.HasPrefix(why, "8K tokens: the most the 5 GB of memory this machine has free holds for qwen3:4b") {
		t.Errorf("5 GiB free: %d, %q; want 8192 said with why", n, why)
	}
	// the memory changes; the chat's next turn keeps the size, so the model is not loaded again
	withMemory(t, 64*gib)
	if again, _ := m.FitContext(context.Background(), "qwen3:4b", 16384); again != n {
		t.Errorf("asked again: %d, want the size held at %d", again, n)
	}

	withMemory(t, 16*gib)
	if n, why := qwenLikeServer(t, 0).FitContext(context.Background(), "qwen3:4b", 16384); n != 16384 || why != "" {
		t.Errorf("16 GiB free: %d, %q; want what was asked, nothing said", n, why)
	}
	// what the loaded model holds is free for it
	withMemory(t, 3*gib)
	if n, _ := qwenLikeServer(t, 4*gib).FitContext(context.Background(), "qwen3:4b", 16384); n != 16384 {
		t.Errorf("3 GiB free and 4 GiB held by the loaded model: %d, want 16384", n)
	}
	withMemory(t, 3*gib)
	if n, why := qwenLikeServer(t, 0).FitContext(context.Background(), "qwen3:4b", 16384); n != ollama.MinFitContext || !strings.Contains(why, "barely fits") {
		t.Errorf("3 GiB free: %d, %q; want the least context, said to be slow", n, why)
	}
}

func TestAServerOnAnotherMachineKeepsTheContextAskedFor(t *testing.T) {
	withMemory(t, 1<<30)
	u, _ := url.Parse("http://gpu.example:11434")
	if n, why := NewOllama(ollama.New(u)).FitContext(context.Background(), "qwen3:4b", 16384); n != 16384 || why != "" {
		t.Errorf("remote server: %d, %q", n, why)
	}
}
