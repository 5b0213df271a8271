package desktop

import (
	"context"
	"errors"
	"time"

	"prototyper/internal/cli"
	"prototyper/model"
	"prototyper/model/openai"
	"prototyper/store"
)

// desktopServer is the model server of the window: the settings' endpoint, with --ollama
// (and the other endpoint flags) in front. A key variable that is empty at start does not
// keep the window from opening: the server is used without a key, and its refusal says what
// to do.
func desktopServer(opts cli.DesktopOptions, settings store.Settings) (*model.Server, error) {
	s := settings
	if opts.EndpointFlags.Given() {
		s.Provider, s.BaseURL, s.APIKeyEnv = opts.Provider, opts.BaseURL, opts.APIKeyEnv
		if s.Provider != store.ProviderOpenAI && opts.BaseURL != "" {
			s.OllamaURL = opts.BaseURL
		}
	}
	s.OllamaURL = cli.FirstNonBlank(opts.Ollama, s.OllamaURL)
	server, err := model.NewOllamaServer(s.OllamaURL)
	if err != nil {
		return nil, err
	}
	if err := useSettings(server, s); errors.Is(err, model.ErrKeyNotSet) {
		s.APIKeyEnv = ""
		err = useSettings(server, s)
	} else if err != nil {
		return nil, err
	}
	return server, nil
}

// useSettings points server at the endpoint of s: Ollama at its address, and then, when the
// provider is the OpenAI-compatible one, that server (pulls still go to Ollama).
func useSettings(server *model.Server, s store.Settings) error {
	ollamaEndpoint := model.Endpoint{Provider: store.ProviderOllama, URL: s.OllamaURL}
	if s.Provider != store.ProviderOpenAI {
		ollamaEndpoint.APIKeyEnv = s.APIKeyEnv
	}
	if err := server.UseEndpoint(ollamaEndpoint); err != nil || s.Provider != store.ProviderOpenAI {
		return err
	}
	return server.UseEndpoint(model.Endpoint{Provider: store.ProviderOpenAI, URL: s.BaseURL, APIKeyEnv: s.APIKeyEnv})
}

// openAIStatus says whether the OpenAI-compatible server answers its model list, asking once
// (waiting at most 5 s), for the panel the window shows when the model server is down: as
// for Ollama, a server that is not there says so at once, in the client's sentence, rather
// than after retries the 5 s could cut short.
func openAIStatus(ctx context.Context, server *model.Server) OllamaStatus {
	ctx, cancel := context.WithTimeout(ctx, 5*time.Second)
	defer cancel()
	oc := server.OpenAI()
	if _, err := oc.With(openai.WithRetry(1, 0, 0, 0)).Models(ctx); err != nil {
		return OllamaStatus{URL: oc.URL(), Error: err.Error()}
	}
	return OllamaStatus{Running: true, URL: oc.URL(), Version: "OpenAI-compatible"}
}
