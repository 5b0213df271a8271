package agentloop

import (
	"testing"

	"prototyper/store"
)

// TestUseMovesOnlyTheOllamaClientUnderTheOpenAIProvider: a new Ollama address (a managed
// server, say) moves pulls there, never the model away from the OpenAI-compatible server.
func TestUseMovesOnlyTheOllamaClientUnderTheOpenAIProvider(t *testing.T) {
	s, err := NewServer(Endpoint{Provider: store.ProviderOpenAI, URL: "http://gpu:8000"})
	if err != nil {
		t.Fatal(err)
	}
	if err := s.Use("http://127.0.0.1:11500"); err != nil {
		t.Fatal(err)
	}
	if _, url := s.Client(); url != "http://127.0.0.1:11500" {
		t.Errorf("the Ollama client is at %s", url)
	}
	if s.OpenAI() == nil || s.Endpoint().URL != "http://gpu:8000/v1" {
		t.Errorf("the model left the OpenAI-compatible server: %+v", s.Endpoint())
	}
	if err := s.UseEndpoint(Endpoint{Provider: store.ProviderOllama, URL: "http://127.0.0.1:11500"}); err != nil || s.OpenAI() != nil {
		t.Errorf("back to Ollama: %v, openai %v", err, s.OpenAI())
	}
	t.Setenv("PROTOTYPER_TEST_EMPTY_KEY", "")
	if err := s.UseEndpoint(Endpoint{APIKeyEnv: "PROTOTYPER_TEST_EMPTY_KEY"}); err == nil {
		t.Error("a key variable that holds nothing was accepted")
	}
}
