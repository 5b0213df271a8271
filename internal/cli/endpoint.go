package cli

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"strconv"
	"text/tabwriter"
	"time"

	"prototyper/model"
	"prototyper/model/ollama"
	"prototyper/store"
)

// EndpointFlags are the flags that choose the server a model answers from: --provider,
// --base-url and --api-key-env.
type EndpointFlags struct {
	Provider  string // --provider ollama|openai; "" is ollama
	BaseURL   string // --base-url URL: the server's address (the OpenAI-compatible API's, or Ollama's)
	APIKeyEnv string // --api-key-env NAME: the environment variable holding the key
}

// Register adds --provider, --base-url and --api-key-env to fs.
func (e *EndpointFlags) Register(fs *flag.FlagSet) {
	fs.StringVar(&e.Provider, "provider", "", "the model server's API: ollama (default) or openai (any OpenAI-compatible server: vLLM, llama.cpp, LM Studio, …)")
	fs.StringVar(&e.BaseURL, "base-url", "", "the model server's `URL`: with --provider openai its API address, e.g. http://gpu:8000/v1; with ollama the same as --ollama")
	fs.StringVar(&e.APIKeyEnv, "api-key-env", "", "the environment variable `NAME` that holds the server's key, sent as a bearer token (the key itself is never stored)")
}

// Given reports whether any of the flags was set.
func (e EndpointFlags) Given() bool { return e.Provider != "" || e.BaseURL != "" || e.APIKeyEnv != "" }

// Endpoint is the endpoint the flags choose; common's --ollama is Ollama's address when
// --base-url is not given.
func (e EndpointFlags) Endpoint(common Common) (model.Endpoint, error) {
	switch e.Provider {
	case "", store.ProviderOllama:
		url := firstNonEmpty(e.BaseURL, common.Ollama)
		if _, err := resolveOllama(url); err != nil {
			return model.Endpoint{}, err
		}
		return model.Endpoint{Provider: store.ProviderOllama, URL: url, APIKeyEnv: e.APIKeyEnv}, nil
	case store.ProviderOpenAI:
		if e.BaseURL == "" {
			return model.Endpoint{}, fmt.Errorf("--provider openai needs --base-url, the server's API address such as http://127.0.0.1:8000/v1")
		}
		return model.Endpoint{Provider: store.ProviderOpenAI, URL: e.BaseURL, APIKeyEnv: e.APIKeyEnv}, nil
	}
	return model.Endpoint{}, fmt.Errorf("--provider is %s or %s, not %q", store.ProviderOllama, store.ProviderOpenAI, e.Provider)
}

// Server is the model of the endpoint the flags choose, with opts for an Ollama client.
func (e EndpointFlags) Server(common Common, opts ...ollama.Option) (*model.Server, error) {
	ep, err := e.Endpoint(common)
	if err != nil {
		return nil, err
	}
	return model.NewServer(ep, opts...)
}

// openAIModels lists the OpenAI-compatible server's models as catalog entries (waiting at
// most 30 s): their names and, when the server says, their context length. Such a server
// cannot tell whether a model calls tools or thinks; the entries say it can, so that the
// window offers every model it serves. Nor does it say whether a model reads images: Vision
// stays false, which for this provider means unknown (the window lets images go, and the
// server's answer decides).
func openAIModels(ctx context.Context, server *model.Server) ([]ollama.CatalogEntry, error) {
	ctx, cancel := context.WithTimeout(ctx, 30*time.Second)
	defer cancel()
	models, err := server.OpenAI().Models(ctx)
	if err != nil {
		return nil, err
	}
	out := make([]ollama.CatalogEntry, 0, len(models))
	for _, m := range models {
		out = append(out, ollama.CatalogEntry{Name: m.ID, Tools: true, Thinking: true, ContextLength: m.ContextLength})
	}
	return out, nil
}

// desktopServer is the model server of the window: the settings' endpoint, with --ollama
// (and the other endpoint flags) in front. A key variable that is empty at start does not
// keep the window from opening: the server is used without a key, and its refusal says what
// to do.
func desktopServer(opts DesktopOptions, settings store.Settings) (*model.Server, error) {
	s := settings
	if opts.EndpointFlags.Given() {
		s.Provider, s.BaseURL, s.APIKeyEnv = opts.Provider, opts.BaseURL, opts.APIKeyEnv
		if s.Provider != store.ProviderOpenAI && opts.BaseURL != "" {
			s.OllamaURL = opts.BaseURL
		}
	}
	s.OllamaURL = firstNonEmpty(opts.Ollama, s.OllamaURL)
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

// openAIStatus says whether the OpenAI-compatible server answers its model list (waiting at
// most 5 s), for the panel the window shows when the model server is down.
func openAIStatus(ctx context.Context, server *model.Server) OllamaStatus {
	ctx, cancel := context.WithTimeout(ctx, 5*time.Second)
	defer cancel()
	oc := server.OpenAI()
	if _, err := oc.Models(ctx); err != nil {
		return OllamaStatus{URL: oc.URL(), Error: err.Error()}
	}
	return OllamaStatus{Running: true, URL: oc.URL(), Version: "OpenAI-compatible"}
}

// openAIModelsCommand is `prototyper models` for an OpenAI-compatible server: the models of
// its /v1/models, with the context length when it says.
func openAIModelsCommand(ctx context.Context, io IO, server *model.Server) int {
	models, err := openAIModels(ctx, server)
	if err != nil {
		return ollamaFailure(ctx, io, "models", err)
	}
	if len(models) == 0 {
		fmt.Fprintf(io.Out, "No models on the server at %s.\n", Sanitize(server.OpenAI().URL()))
		return ExitCompleted
	}
	tw := tabwriter.NewWriter(io.Out, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "NAME\tCONTEXT")
	for _, m := range models {
		context := "?"
		if m.ContextLength > 0 {
			context = strconv.Itoa(m.ContextLength)
		}
		fmt.Fprintf(tw, "%s\t%s\n", cell(m.Name), context)
	}
	if err := tw.Flush(); err != nil {
		return ExitFailed
	}
	return ExitCompleted
}
