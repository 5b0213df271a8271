package model

import (
	"context"
	"errors"
	"fmt"
	"os"
	"slices"
	"strings"
	"sync"
	"time"

	"prototyper/model/ollama"
	"prototyper/model/openai"
	"prototyper/store"
)

// Server is the [Model] of the server the user chose, with its client: a local or
// remote Ollama (the default), or an OpenAI-compatible server ([Endpoint]). [Use] and
// [UseEndpoint] re-point it when the user changes the address or the provider: the next
// model request (and the next question about a model) goes to the new server; what the
// previous one said of its models is forgotten. Its methods are safe for concurrent use.
type Server struct {
	opts []ollama.Option

	mu       sync.RWMutex
	endpoint Endpoint // as given, with the address resolved
	key      string   // the key the endpoint's variable held when it was chosen
	url      string
	client   *ollama.Client // the Ollama server's; a default one under ProviderOpenAI
	openai   *openai.Client // nil unless the provider is ProviderOpenAI
	model    Model
}

// Endpoint says where models answer: through which API, at which address, with which key.
type Endpoint struct {
	// Provider is store.ProviderOllama ("" too) or store.ProviderOpenAI.
	Provider string
	// URL is the Ollama address ("": OLLAMA_HOST, else the default) or the
	// OpenAI-compatible base URL (required).
	URL string
	// APIKeyEnv names the environment variable whose value is sent as a bearer token (to
	// Ollama behind a proxy, or to the OpenAI-compatible server); "" sends none. The key is
	// read from the environment when the endpoint is chosen and kept only in memory.
	APIKeyEnv string
}

// ErrKeyNotSet is matched by the error of an [Endpoint] whose key variable is empty.
var ErrKeyNotSet = errors.New("the API key variable is not set")

// key reads the endpoint's key from its environment variable.
func (e Endpoint) key() (string, error) {
	if e.APIKeyEnv == "" {
		return "", nil
	}
	if !store.ValidEnvName(e.APIKeyEnv) {
		return "", fmt.Errorf("%q is not the name of an environment variable: give the name of the variable that holds the key, never the key itself", e.APIKeyEnv)
	}
	key := strings.TrimSpace(os.Getenv(e.APIKeyEnv))
	if key == "" {
		return "", fmt.Errorf("%w: the environment variable %s holds no key — set it where Prototyper starts (export %s=…), or name another one", ErrKeyNotSet, e.APIKeyEnv, e.APIKeyEnv)
	}
	return key, nil
}

// NewOllamaServer returns the model of the Ollama server at raw (resolved by
// [ollama.ResolveHost]: "" is OLLAMA_HOST, else the default address); opts configure its
// client.
func NewOllamaServer(raw string, opts ...ollama.Option) (*Server, error) {
	return NewServer(Endpoint{URL: raw}, opts...)
}

// NewServer returns the model of the server at e; opts configure an Ollama client.
func NewServer(e Endpoint, opts ...ollama.Option) (*Server, error) {
	s := &Server{opts: opts}
	if err := s.UseEndpoint(e); err != nil {
		return nil, err
	}
	return s, nil
}

// Use points the server at the Ollama server at raw, unless it already is there; the key's
// variable stays. Under [store.ProviderOpenAI] only the Ollama client (of pulls) moves: the
// model still answers from the OpenAI-compatible server.
func (s *Server) Use(raw string) error {
	s.mu.RLock()
	current := s.endpoint
	s.mu.RUnlock()
	if current.Provider != store.ProviderOpenAI {
		return s.UseEndpoint(Endpoint{Provider: store.ProviderOllama, URL: raw, APIKeyEnv: current.APIKeyEnv})
	}
	base, err := ollama.ResolveHost(raw)
	if err != nil {
		return err
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.client == nil || s.client.URL() != base.String() {
		s.client = ollama.New(base, s.opts...)
	}
	return nil
}

// UseEndpoint points the server at e, unless it already is there (with the same key).
func (s *Server) UseEndpoint(e Endpoint) error {
	key, err := e.key()
	if err != nil {
		return err
	}
	if e.Provider == "" {
		e.Provider = store.ProviderOllama
	}
	var (
		url    string
		client *ollama.Client
		oc     *openai.Client
		model  Model
	)
	switch e.Provider {
	case store.ProviderOllama:
		base, err := ollama.ResolveHost(e.URL)
		if err != nil {
			return err
		}
		url = base.String()
		opts := s.opts
		if key != "" {
			opts = append(slices.Clip(opts), ollama.WithAuthorization("Bearer "+key))
		}
		client = ollama.New(base, opts...)
		model = NewOllama(client)
	case store.ProviderOpenAI:
		base, err := openai.ParseBaseURL(e.URL)
		if err != nil {
			return err
		}
		url = base.String()
		oc = openai.New(base, openai.WithAPIKey(key, e.APIKeyEnv))
		model = NewOpenAI(oc)
		// pulls and the Ollama address in the settings keep to the Ollama server chosen last
		if client, _ = s.Client(); client == nil {
			base, _ := ollama.ResolveHost("")
			client = ollama.New(base, s.opts...)
		}
	default:
		return fmt.Errorf("the provider is %s or %s, not %q", store.ProviderOllama, store.ProviderOpenAI, e.Provider)
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	e.URL = url
	if s.model != nil && s.endpoint == e && s.key == key {
		return nil
	}
	s.endpoint, s.key, s.url, s.client, s.openai, s.model = e, key, url, client, oc, model
	return nil
}

// Endpoint returns the endpoint in use, its address resolved.
func (s *Server) Endpoint() Endpoint {
	s.mu.RLock()
	defer s.mu.RUnlock()
	return s.endpoint
}

// OpenAI returns the OpenAI-compatible server's client, nil when the provider is Ollama.
func (s *Server) OpenAI() *openai.Client {
	s.mu.RLock()
	defer s.mu.RUnlock()
	return s.openai
}

// Client returns the Ollama client (the one in use, or under [store.ProviderOpenAI] the
// Ollama server chosen last, for pulls) and its address.
func (s *Server) Client() (*ollama.Client, string) {
	s.mu.RLock()
	defer s.mu.RUnlock()
	if s.client == nil {
		return nil, ""
	}
	return s.client, s.client.URL()
}

// Check says whether e can be used: its key variable, when it names one, holds a key.
func (e Endpoint) Check() error {
	_, err := e.key()
	return err
}

func (s *Server) current() Model {
	s.mu.RLock()
	defer s.mu.RUnlock()
	return s.model
}

// Chat streams one turn from the server in use.
func (s *Server) Chat(ctx context.Context, req Request, fn DeltaFunc) (Turn, error) {
	return s.current().Chat(ctx, req, fn)
}

// ContextLength asks the server in use (see [Ollama.ContextLength] and
// [OpenAI.ContextLength]).
func (s *Server) ContextLength(ctx context.Context, model string) (int, error) {
	return s.current().ContextLength(ctx, model)
}

// FitContext asks the server in use (see [Ollama.FitContext]); another server keeps want.
func (s *Server) FitContext(ctx context.Context, model string, want int) (numCtx int, why string) {
	if f, is := s.current().(ContextFitter); is {
		return f.FitContext(ctx, model, want)
	}
	return want, ""
}

// SupportsTools asks the server in use (see [Ollama.SupportsTools]); an
// OpenAI-compatible server cannot tell.
func (s *Server) SupportsTools(ctx context.Context, model string) (ok, known bool) {
	if ts, is := s.current().(ToolSupport); is {
		return ts.SupportsTools(ctx, model)
	}
	return false, false
}

// Loaded asks the server in use (see [Ollama.Loaded]); an OpenAI-compatible server
// cannot tell.
func (s *Server) Loaded(ctx context.Context, model string) (loaded, known bool) {
	if r, is := s.current().(Residency); is {
		return r.Loaded(ctx, model)
	}
	return false, false
}

// Preload loads model on the server in use (see [Ollama.Preload]); an
// OpenAI-compatible server cannot load a model ahead of a message ([ErrNoPreload]).
func (s *Server) Preload(ctx context.Context, model string, numCtx int, keepAlive time.Duration) (time.Duration, error) {
	if r, is := s.current().(Residency); is {
		return r.Preload(ctx, model, numCtx, keepAlive)
	}
	return 0, ErrNoPreload
}

// SupportsVision asks the server in use (see [Ollama.SupportsVision]); an
// OpenAI-compatible server cannot tell.
func (s *Server) SupportsVision(ctx context.Context, model string) (ok, known bool) {
	if vs, is := s.current().(VisionSupport); is {
		return vs.SupportsVision(ctx, model)
	}
	return false, false
}

var (
	_ VisionSupport = (*Server)(nil)
	_ ToolSupport   = (*Server)(nil)
	_ Residency     = (*Server)(nil)
)
