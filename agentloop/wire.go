package agentloop

import (
	"context"
	"path/filepath"
	"sync"
	"time"

	"prototyper/agentloop/ollama"
	"prototyper/store"
	"prototyper/tools"
)

// WireOptions are what differs between the window's agent and `prototyper run`'s.
type WireOptions struct {
	// Workspace is the folder of a chat created without one (`prototyper run`: its
	// --workspace, else the current folder; the window names the folder of each new chat).
	Workspace string
}

// Wire returns the agent of the app, the one constructor of both the window and
// `prototyper run`: model answers, db keeps the chats and the settings, emitter takes the
// events, and the tools are the workspace file tools, which refuse the database, its lock
// and its backups (the database's folder and the file itself, also through a link).
func Wire(db *store.DB, model Model, emitter Emitter, opts WireOptions) *Agent {
	return NewAgent(Config{
		Model:   model,
		Store:   db,
		Emitter: emitter,
		Tools: WorkspaceTools(tools.WorkspaceOptions{
			ProtectedDirs:  []string{filepath.Dir(db.Path())},
			ProtectedFiles: []string{db.Path()},
		}),
		Workspace: opts.Workspace,
	})
}

// OllamaServer is the [Model] of the Ollama server the user chose, with its client. [Use]
// re-points it when the user changes the address: the next model request (and the next
// question about a model) goes to the new server; what the previous one said of its models
// is forgotten. Its methods are safe for concurrent use.
type OllamaServer struct {
	opts []ollama.Option

	mu     sync.RWMutex
	url    string
	client *ollama.Client
	model  *OllamaModel
}

// NewOllamaServer returns the model of the server at raw (resolved by [ollama.ResolveHost]:
// "" is OLLAMA_HOST, else the default address); opts configure its client.
func NewOllamaServer(raw string, opts ...ollama.Option) (*OllamaServer, error) {
	s := &OllamaServer{opts: opts}
	if err := s.Use(raw); err != nil {
		return nil, err
	}
	return s, nil
}

// Use points the server at raw, unless it already is there.
func (s *OllamaServer) Use(raw string) error {
	base, err := ollama.ResolveHost(raw)
	if err != nil {
		return err
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.client != nil && base.String() == s.url {
		return nil
	}
	s.client = ollama.New(base, s.opts...)
	s.url, s.model = base.String(), NewOllamaModel(s.client)
	return nil
}

// Client returns the client of the server in use and its address.
func (s *OllamaServer) Client() (*ollama.Client, string) {
	s.mu.RLock()
	defer s.mu.RUnlock()
	return s.client, s.url
}

func (s *OllamaServer) current() *OllamaModel {
	s.mu.RLock()
	defer s.mu.RUnlock()
	return s.model
}

// Chat streams one turn from the server in use.
func (s *OllamaServer) Chat(ctx context.Context, req ModelRequest, fn DeltaFunc) (ModelTurn, error) {
	return s.current().Chat(ctx, req, fn)
}

// ContextLength asks the server in use (see [OllamaModel.ContextLength]).
func (s *OllamaServer) ContextLength(ctx context.Context, model string) (int, error) {
	return s.current().ContextLength(ctx, model)
}

// SupportsTools asks the server in use (see [OllamaModel.SupportsTools]).
func (s *OllamaServer) SupportsTools(ctx context.Context, model string) (ok, known bool) {
	return s.current().SupportsTools(ctx, model)
}

// Loaded asks the server in use (see [OllamaModel.Loaded]).
func (s *OllamaServer) Loaded(ctx context.Context, model string) (loaded, known bool) {
	return s.current().Loaded(ctx, model)
}

// Preload loads model on the server in use (see [OllamaModel.Preload]).
func (s *OllamaServer) Preload(ctx context.Context, model string, numCtx int, keepAlive time.Duration) (time.Duration, error) {
	return s.current().Preload(ctx, model, numCtx, keepAlive)
}

// SupportsVision asks the server in use (see [OllamaModel.SupportsVision]).
func (s *OllamaServer) SupportsVision(ctx context.Context, model string) (ok, known bool) {
	return s.current().SupportsVision(ctx, model)
}

var (
	_ VisionSupport = (*OllamaServer)(nil)
	_ ToolSupport   = (*OllamaServer)(nil)
	_ Residency     = (*OllamaServer)(nil)
)
