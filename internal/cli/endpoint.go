package cli

import (
	"context"
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
		url := FirstNonBlank(e.BaseURL, common.Ollama)
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

// openDBAndServer opens the database common names and the model server the flags choose, as
// a command that runs the agent needs both: a database that does not open ends the command as
// fail says, a server the flags get wrong as usage says (the user corrects the flags). ok
// false: the command ends with exit and nothing is left open; otherwise the caller closes db.
func (e EndpointFlags) openDBAndServer(common Common, usage func(string) int, fail func(error) int) (db *store.DB, server *model.Server, exit int, ok bool) {
	db, err := common.OpenDB(store.Options{})
	if err != nil {
		return nil, nil, fail(err), false
	}
	server, err = e.Server(common)
	if err != nil {
		exit = usage(err.Error())
		db.Close()
		return nil, nil, exit, false
	}
	return db, server, 0, true
}

// OpenAIModels lists the OpenAI-compatible server's models as catalog entries (waiting at
// most 30 s): their names and, when the server says, their context length. Such a server
// cannot tell whether a model calls tools or thinks; the entries say it can, so that the
// window offers every model it serves. Nor does it say whether a model reads images: Vision
// stays false, which for this provider means unknown (the window lets images go, and the
// server's answer decides).
func OpenAIModels(ctx context.Context, server *model.Server) ([]ollama.CatalogEntry, error) {
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

// openAIModelsCommand is `prototyper models` for an OpenAI-compatible server: the models of
// its /v1/models, with the context length when it says.
func openAIModelsCommand(ctx context.Context, io IO, server *model.Server) int {
	models, err := OpenAIModels(ctx, server)
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
