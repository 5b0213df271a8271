package agentloop

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"time"

	"prototyper/agentloop/ollama"
	"prototyper/agentloop/openai"
	"prototyper/store"
	"prototyper/tools"
)

// WireOptions are what differs between the window's agent and `prototyper run`'s.
type WireOptions struct {
	// Workspace is the folder of a chat created without one (`prototyper run`: its
	// --workspace, else the current folder; the window names the folder of each new chat).
	Workspace string
	// Extra adds tools to every workspace's file tools (the MCP servers'); nil adds none.
	Extra ExtraTools
	// ConfigFiles are configuration files of the app outside its configuration folders
	// (--mcp-config's file), refused to the tools like those folders.
	ConfigFiles []string
	// Buffers is where read_file reads files an editor may hold unsaved (`prototyper acp`);
	// nil reads the disk.
	Buffers tools.Buffers
}

// Wire returns the agent of the app, the one constructor of both the window and
// `prototyper run`: model answers, db keeps the chats and the settings, emitter takes the
// events, and the tools are the workspace file tools, which refuse the app's own files: the
// database, its lock and its backups (the database's folder and the file itself, also
// through a link) and the configuration folders (appConfigDirs).
func Wire(db *store.DB, model Model, emitter Emitter, opts WireOptions) *Agent {
	files := tools.WorkspaceOptions{
		ProtectedDirs:  []string{filepath.Dir(db.Path())},
		ProtectedFiles: []string{db.Path()},
		ConfigDirs:     appConfigDirs(),
		ConfigFiles:    opts.ConfigFiles,
		Buffers:        opts.Buffers,
		Commands:       true,
		UnconfinedCommands: func() bool {
			s, err := db.Settings()
			return err == nil && s.UnconfinedCommands
		},
	}
	factory := WorkspaceTools(files)
	if opts.Extra != nil {
		factory = withExtraTools(files, opts.Extra)
	}
	return NewAgent(Config{
		Model:     model,
		Store:     db,
		Emitter:   emitter,
		Tools:     factory,
		Files:     files,
		Workspace: opts.Workspace,
	})
}

// appConfigDirs are the folders of the app's own configuration, which no tool may read or
// change: a workspace's [tools.WorkspaceConfigDir] (relative, so each workspace's own) and
// the user's config folder (os.UserConfigDir()/prototyper), whose files (the MCP servers the
// app starts) an agent could otherwise turn into a program of its choosing.
func appConfigDirs() []string {
	dirs := []string{tools.WorkspaceConfigDir}
	if dir, err := os.UserConfigDir(); err == nil {
		dirs = append(dirs, filepath.Join(dir, "prototyper"))
	}
	return dirs
}

// OllamaServer is the [Model] of the server the user chose, with its client: a local or
// remote Ollama (the default), or an OpenAI-compatible server ([Endpoint]). [Use] and
// [UseEndpoint] re-point it when the user changes the address or the provider: the next
// model request (and the next question about a model) goes to the new server; what the
// previous one said of its models is forgotten. Its methods are safe for concurrent use.
type OllamaServer struct {
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
func NewOllamaServer(raw string, opts ...ollama.Option) (*OllamaServer, error) {
	return NewServer(Endpoint{URL: raw}, opts...)
}

// NewServer returns the model of the server at e; opts configure an Ollama client.
func NewServer(e Endpoint, opts ...ollama.Option) (*OllamaServer, error) {
	s := &OllamaServer{opts: opts}
	if err := s.UseEndpoint(e); err != nil {
		return nil, err
	}
	return s, nil
}

// Use points the server at the Ollama server at raw, unless it already is there; the key's
// variable stays. Under [store.ProviderOpenAI] only the Ollama client (of pulls) moves: the
// model still answers from the OpenAI-compatible server.
func (s *OllamaServer) Use(raw string) error {
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
func (s *OllamaServer) UseEndpoint(e Endpoint) error {
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
		model = NewOllamaModel(client)
	case store.ProviderOpenAI:
		base, err := openai.ParseBaseURL(e.URL)
		if err != nil {
			return err
		}
		url = base.String()
		oc = openai.New(base, openai.WithAPIKey(key, e.APIKeyEnv))
		model = NewOpenAIModel(oc)
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
func (s *OllamaServer) Endpoint() Endpoint {
	s.mu.RLock()
	defer s.mu.RUnlock()
	return s.endpoint
}

// OpenAI returns the OpenAI-compatible server's client, nil when the provider is Ollama.
func (s *OllamaServer) OpenAI() *openai.Client {
	s.mu.RLock()
	defer s.mu.RUnlock()
	return s.openai
}

// Client returns the Ollama client (the one in use, or under [store.ProviderOpenAI] the
// Ollama server chosen last, for pulls) and its address.
func (s *OllamaServer) Client() (*ollama.Client, string) {
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

func (s *OllamaServer) current() Model {
	s.mu.RLock()
	defer s.mu.RUnlock()
	return s.model
}

// Chat streams one turn from the server in use.
func (s *OllamaServer) Chat(ctx context.Context, req ModelRequest, fn DeltaFunc) (ModelTurn, error) {
	return s.current().Chat(ctx, req, fn)
}

// ContextLength asks the server in use (see [OllamaModel.ContextLength] and
// [OpenAIModel.ContextLength]).
func (s *OllamaServer) ContextLength(ctx context.Context, model string) (int, error) {
	return s.current().ContextLength(ctx, model)
}

// SupportsTools asks the server in use (see [OllamaModel.SupportsTools]); an
// OpenAI-compatible server cannot tell.
func (s *OllamaServer) SupportsTools(ctx context.Context, model string) (ok, known bool) {
	if ts, is := s.current().(ToolSupport); is {
		return ts.SupportsTools(ctx, model)
	}
	return false, false
}

// Loaded asks the server in use (see [OllamaModel.Loaded]); an OpenAI-compatible server
// cannot tell.
func (s *OllamaServer) Loaded(ctx context.Context, model string) (loaded, known bool) {
	if r, is := s.current().(Residency); is {
		return r.Loaded(ctx, model)
	}
	return false, false
}

// Preload loads model on the server in use (see [OllamaModel.Preload]); an
// OpenAI-compatible server cannot load a model ahead of a message ([ErrNoPreload]).
func (s *OllamaServer) Preload(ctx context.Context, model string, numCtx int, keepAlive time.Duration) (time.Duration, error) {
	if r, is := s.current().(Residency); is {
		return r.Preload(ctx, model, numCtx, keepAlive)
	}
	return 0, ErrNoPreload
}

// SupportsVision asks the server in use (see [OllamaModel.SupportsVision]); an
// OpenAI-compatible server cannot tell.
func (s *OllamaServer) SupportsVision(ctx context.Context, model string) (ok, known bool) {
	if vs, is := s.current().(VisionSupport); is {
		return vs.SupportsVision(ctx, model)
	}
	return false, false
}

var (
	_ VisionSupport = (*OllamaServer)(nil)
	_ ToolSupport   = (*OllamaServer)(nil)
	_ Residency     = (*OllamaServer)(nil)
)
