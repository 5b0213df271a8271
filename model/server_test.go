package model

import (
	"context"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"prototyper/model/openai"
	"prototyper/model/vocab"
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

// TestTheOpenAIModelWaitsTheRunsFirstByteTimeout: a run's --first-byte-timeout (the
// setting) bounds the wait of the OpenAI-compatible client as it bounds the native one's,
// and the failure is the native client's code, retryable, naming how to wait longer.
func TestTheOpenAIModelWaitsTheRunsFirstByteTimeout(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		_, _ = io.Copy(io.Discard, r.Body) // so that the server notices the client's close
		<-r.Context().Done()
	}))
	t.Cleanup(srv.Close)
	base, err := openai.ParseBaseURL(srv.URL)
	if err != nil {
		t.Fatal(err)
	}
	m := NewOpenAI(openai.New(base, openai.WithRetry(1, 0, time.Millisecond, time.Millisecond)))
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute) // the client's default is 5 min
	defer cancel()
	_, err = m.Chat(ctx, Request{Model: "m", FirstByteTimeout: 100 * time.Millisecond}, func(Delta) error { return nil })
	var ce ClassifiedError
	if !errors.As(err, &ce) || ce.Code() != vocab.CodeFirstByteTimeout || !ce.Retryable() || !errors.Is(err, vocab.ErrFirstByteTimeout) ||
		!strings.Contains(err.Error(), "--first-byte-timeout") {
		t.Errorf("err = %v; want the first-byte timeout, retryable, saying how to allow longer", err)
	}
}
