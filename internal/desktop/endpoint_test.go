package desktop

import (
	"context"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"

	"prototyper/internal/cli"
	"prototyper/store"
)

// TestTheWindowSwitchesToAnOpenAICompatibleServerInTheSettings: saving the provider, the
// base URL and the key's variable points the window's models and status at that server,
// with the key; the key itself is in no setting.
func TestTheWindowSwitchesToAnOpenAICompatibleServerInTheSettings(t *testing.T) {
	var auth string
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		auth = r.Header.Get("Authorization")
		if r.URL.Path != "/v1/models" {
			http.NotFound(w, r)
			return
		}
		_, _ = io.WriteString(w, `{"object":"list","data":[{"id":"qwen3-32b","max_model_len":32768},{"id":"llama-70b"}]}`)
	}))
	defer srv.Close()
	t.Setenv("PROTOTYPER_TEST_KEY", "k-123")
	d, _ := openTestDesktop(t, cli.DesktopOptions{})

	if err := d.SaveSettings(store.Settings{Provider: store.ProviderOpenAI, BaseURL: srv.URL, APIKeyEnv: "NOT_SET_ANYWHERE_X"}); err == nil ||
		!strings.Contains(err.Error(), "NOT_SET_ANYWHERE_X holds no key") {
		t.Fatalf("a key variable that holds nothing: %v", err)
	}
	if err := d.SaveSettings(store.Settings{Provider: store.ProviderOpenAI, BaseURL: srv.URL, APIKeyEnv: "PROTOTYPER_TEST_KEY"}); err != nil {
		t.Fatal(err)
	}
	models, err := d.Models(context.Background())
	if err != nil || len(models) != 2 || models[0].Name != "llama-70b" || models[1].ContextLength != 32768 {
		t.Fatalf("models = %+v, %v", models, err)
	}
	if auth != "Bearer k-123" {
		t.Errorf("Authorization = %q", auth)
	}
	if st := d.OllamaStatus(context.Background()); !st.Running || st.URL != srv.URL+"/v1" {
		t.Errorf("status = %+v", st)
	}
	c, err := d.Config()
	if err != nil || c.Provider != store.ProviderOpenAI || c.Saved.BaseURL != srv.URL || c.Saved.APIKeyEnv != "PROTOTYPER_TEST_KEY" {
		t.Errorf("config = %+v, %v", c.Saved, err)
	}
	s, _ := d.db.Settings()
	if strings.Contains(s.BaseURL+s.APIKeyEnv+s.OllamaURL, "k-123") {
		t.Error("the key reached the settings")
	}

	// back to Ollama: the model list asks Ollama again
	if err := d.SaveSettings(store.Settings{Provider: store.ProviderOllama}); err != nil {
		t.Fatal(err)
	}
	if d.server.OpenAI() != nil {
		t.Error("still on the OpenAI-compatible server")
	}
}

// TestTheWindowSendsTheTokenOfTheSettingsToARemoteOllama: with the Ollama provider, the key
// variable of the settings is the token of a remote Ollama behind a proxy.
func TestTheWindowSendsTheTokenOfTheSettingsToARemoteOllama(t *testing.T) {
	var auth string
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		auth = r.Header.Get("Authorization")
		_, _ = io.WriteString(w, `{"version":"0.11.4"}`)
	}))
	defer srv.Close()
	t.Setenv("PROTOTYPER_TEST_OLLAMA_TOKEN", "tok-9")
	d, _ := openTestDesktop(t, cli.DesktopOptions{})
	if err := d.SaveSettings(store.Settings{OllamaURL: srv.URL, APIKeyEnv: "PROTOTYPER_TEST_OLLAMA_TOKEN"}); err != nil {
		t.Fatal(err)
	}
	if st := d.OllamaStatus(context.Background()); !st.Running || auth != "Bearer tok-9" {
		t.Errorf("status %+v, Authorization %q", st, auth)
	}
}

// TestTheStatusOfAnOpenAICompatibleServerAsksItOnceAndSaysWhatItAnswered: the probe behind
// the "model server does not answer" panel makes one request, so that its 5 s never cut a
// client's retries short into "context deadline exceeded"; what the server said is the detail.
func TestTheStatusOfAnOpenAICompatibleServerAsksItOnceAndSaysWhatItAnswered(t *testing.T) {
	var mu sync.Mutex
	asked := 0
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		asked++
		mu.Unlock()
		http.Error(w, `{"error":{"message":"loading"}}`, http.StatusServiceUnavailable)
	}))
	defer srv.Close()
	d, _ := openTestDesktop(t, cli.DesktopOptions{})
	if err := d.SaveSettings(store.Settings{Provider: store.ProviderOpenAI, BaseURL: srv.URL}); err != nil {
		t.Fatal(err)
	}
	mu.Lock()
	asked = 0
	mu.Unlock()
	st := d.OllamaStatus(context.Background())
	mu.Lock()
	defer mu.Unlock()
	if st.Running || asked != 1 || !strings.Contains(st.Error, "is busy (HTTP 503") {
		t.Errorf("status = %+v after %d requests; want one request and the server's busy answer", st, asked)
	}
}
