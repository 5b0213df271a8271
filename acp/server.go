package acp

import (
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"log/slog"
	"os"
	"path/filepath"
	"sync"
	"time"

	sdk "github.com/coder/acp-go-sdk"

	"prototyper/agentloop"
	"prototyper/events"
	"prototyper/store"
	"prototyper/tools"
)

// Config assembles what [Serve] serves. DB and Wire are required.
type Config struct {
	DB *store.DB
	// Model is the model of the chats session/new creates ("": the settings').
	Model string
	// Wire returns the agent of the connection, emitting into emitter, its read_file reading
	// through buffers (the editor's, when it offers to read files).
	Wire func(emitter agentloop.Emitter, buffers tools.Buffers) *agentloop.Agent
	// Explain turns an error into the one sentence the editor shows (nil: err.Error()).
	Explain func(error) string
	// Log receives the connection's diagnostics (nil: discarded). Never stdout: that is the
	// protocol's.
	Log *slog.Logger
	// Version is the agent's version in initialize's agentInfo.
	Version string
}

// cancelGrace bounds how long a cancelled prompt waits for its run to end before it answers
// cancelled anyway (the run keeps ending in the background).
const cancelGrace = 2 * time.Second

// Serve speaks the protocol on in and out until the client closes in or ctx ends, then stops
// every run (each keeps its partial answer, as a Stop in the window does).
func Serve(ctx context.Context, in io.Reader, out io.Writer, cfg Config) error {
	if cfg.Explain == nil {
		cfg.Explain = func(err error) string { return err.Error() }
	}
	if cfg.Log == nil {
		cfg.Log = slog.New(slog.NewTextHandler(io.Discard, nil))
	}
	s := &Server{cfg: cfg, sessions: map[string]*session{}, ready: make(chan struct{})}
	bridge, err := events.NewBridge(updateSink{s})
	if err != nil {
		return err
	}
	s.agent = cfg.Wire(bridge, editorBuffers{s})
	s.conn = sdk.NewAgentSideConnection(s, flushing{out}, boundLines(in, maxMessage, cfg.Log))
	s.conn.SetLogger(cfg.Log)
	close(s.ready)
	select {
	case <-s.conn.Done():
	case <-ctx.Done():
	}
	stopCtx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	err = s.agent.Shutdown(stopCtx)
	return errors.Join(err, bridge.Close())
}

// flushing writes each message through to w and flushes it when w buffers: a message the
// connection wrote is on the wire when Write returns, which is what the sink's paint is.
type flushing struct{ w io.Writer }

func (f flushing) Write(p []byte) (int, error) {
	n, err := f.w.Write(p)
	if err != nil {
		return n, err
	}
	if fl, ok := f.w.(interface{ Flush() error }); ok {
		err = fl.Flush()
	}
	return n, err
}

// Server is the agent side of one connection: the protocol's methods over the agent and the
// store. Its methods are called by the connection, each request on a goroutine of its own.
type Server struct {
	cfg   Config
	agent *agentloop.Agent
	conn  *sdk.AgentSideConnection
	ready chan struct{} // closed once conn is set

	mu       sync.Mutex
	sessions map[string]*session // by chat id
	reads    bool                // the editor offered fs/read_text_file
	writes   bool                // the editor offered fs/write_text_file
}

var (
	_ sdk.Agent       = (*Server)(nil)
	_ sdk.AgentLoader = (*Server)(nil)
)

// peer is the connection, once Serve has set it.
func (s *Server) peer() *sdk.AgentSideConnection {
	<-s.ready
	return s.conn
}

// fail is err as the protocol's error, with the sentence a user reads.
func (s *Server) fail(err error) error {
	var re *sdk.RequestError
	if errors.As(err, &re) {
		return re
	}
	return &sdk.RequestError{Code: -32603, Message: s.cfg.Explain(err)}
}

// Initialize says what this agent does: sessions that load, prompts with images and
// embedded resources; no authentication, no MCP servers from the client.
func (s *Server) Initialize(ctx context.Context, p sdk.InitializeRequest) (sdk.InitializeResponse, error) {
	s.mu.Lock()
	s.reads = p.ClientCapabilities.Fs.ReadTextFile
	s.writes = p.ClientCapabilities.Fs.WriteTextFile
	s.mu.Unlock()
	return sdk.InitializeResponse{
		ProtocolVersion: sdk.ProtocolVersionNumber,
		AgentCapabilities: sdk.AgentCapabilities{
			LoadSession:        true,
			PromptCapabilities: sdk.PromptCapabilities{Image: true, EmbeddedContext: true},
		},
		AgentInfo:   &sdk.Implementation{Name: "prototyper", Title: sdk.Ptr("Prototyper"), Version: s.cfg.Version},
		AuthMethods: []sdk.AuthMethod{},
	}, nil
}

// Authenticate is never needed: the model server is the user's own.
func (s *Server) Authenticate(ctx context.Context, p sdk.AuthenticateRequest) (sdk.AuthenticateResponse, error) {
	return sdk.AuthenticateResponse{}, nil
}

// NewSession creates a chat in the folder cwd, with the configured model.
func (s *Server) NewSession(ctx context.Context, p sdk.NewSessionRequest) (sdk.NewSessionResponse, error) {
	if err := checkFolder(p.Cwd); err != nil {
		return sdk.NewSessionResponse{}, invalid(err.Error())
	}
	c, err := s.cfg.DB.CreateChat(store.Chat{Workspace: filepath.Clean(p.Cwd), Model: s.cfg.Model})
	if err != nil {
		return sdk.NewSessionResponse{}, s.fail(err)
	}
	sess := s.open(c.ID)
	return sdk.NewSessionResponse{SessionId: sdk.SessionId(c.ID), Modes: sess.modeState()}, nil
}

// LoadSession opens the chat whose id is the session's and replays its history as updates
// before it answers. The chat keeps its own folder (its changes and undo are there), whatever
// cwd says.
func (s *Server) LoadSession(ctx context.Context, p sdk.LoadSessionRequest) (sdk.LoadSessionResponse, error) {
	chatID := string(p.SessionId)
	opened, err := s.agent.Open(chatID)
	if errors.Is(err, store.ErrNotFound) {
		return sdk.LoadSessionResponse{}, invalid(fmt.Sprintf("no chat %q in this store: start a new session, or load a chat that `prototyper chats list` shows", chatID))
	}
	if err != nil {
		return sdk.LoadSessionResponse{}, s.fail(err)
	}
	sess := s.open(chatID)
	for _, u := range history(opened) {
		if err := s.peer().SessionUpdate(ctx, sdk.SessionNotification{SessionId: p.SessionId, Update: u}); err != nil {
			return sdk.LoadSessionResponse{}, err
		}
	}
	return sdk.LoadSessionResponse{Modes: sess.modeState()}, nil
}

// SetSessionMode sets the approval policy of the session's next runs.
func (s *Server) SetSessionMode(ctx context.Context, p sdk.SetSessionModeRequest) (sdk.SetSessionModeResponse, error) {
	sess := s.session(p.SessionId)
	if sess == nil {
		return sdk.SetSessionModeResponse{}, errNoSession(p.SessionId)
	}
	if err := sess.setMode(string(p.ModeId)); err != nil {
		return sdk.SetSessionModeResponse{}, invalid(err.Error())
	}
	return sdk.SetSessionModeResponse{}, nil
}

// Cancel stops the session's run, as Stop in the window does; the prompt then answers
// cancelled. (The connection has already cancelled the prompt's context.)
func (s *Server) Cancel(ctx context.Context, p sdk.CancelNotification) error {
	if sess := s.session(p.SessionId); sess != nil {
		return s.agent.Stop(sess.chatID)
	}
	return nil
}

// CloseSession, ListSessions, ResumeSession and SetSessionConfigOption are capabilities this
// agent does not announce.
func (s *Server) CloseSession(ctx context.Context, p sdk.CloseSessionRequest) (sdk.CloseSessionResponse, error) {
	return sdk.CloseSessionResponse{}, sdk.NewMethodNotFound(sdk.AgentMethodSessionClose)
}

func (s *Server) ListSessions(ctx context.Context, p sdk.ListSessionsRequest) (sdk.ListSessionsResponse, error) {
	return sdk.ListSessionsResponse{}, sdk.NewMethodNotFound(sdk.AgentMethodSessionList)
}

func (s *Server) ResumeSession(ctx context.Context, p sdk.ResumeSessionRequest) (sdk.ResumeSessionResponse, error) {
	return sdk.ResumeSessionResponse{}, sdk.NewMethodNotFound(sdk.AgentMethodSessionResume)
}

func (s *Server) SetSessionConfigOption(ctx context.Context, p sdk.SetSessionConfigOptionRequest) (sdk.SetSessionConfigOptionResponse, error) {
	return sdk.SetSessionConfigOptionResponse{}, sdk.NewMethodNotFound(sdk.AgentMethodSessionSetConfigOption)
}

func errNoSession(id sdk.SessionId) error {
	return invalid(fmt.Sprintf("no session %q in this connection: create it with session/new or open it with session/load", id))
}

// invalid is the protocol's invalid-params error whose message is the sentence a user
// reads: editors show an error's message, not its data.
func invalid(sentence string) *sdk.RequestError {
	return &sdk.RequestError{Code: -32602, Message: sentence, Data: map[string]any{"error": sentence}}
}

// checkFolder says in one sentence why cwd cannot be a session's folder, or nil.
func checkFolder(cwd string) error {
	if !filepath.IsAbs(cwd) {
		return fmt.Errorf("the session's folder %q is not an absolute path: give the workspace folder's full path", cwd)
	}
	fi, err := os.Stat(cwd)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return fmt.Errorf("the session's folder %s does not exist: create it, or open a folder that exists", cwd)
	case err != nil:
		return fmt.Errorf("the session's folder %s cannot be read (%v): open a folder you can read", cwd, errors.Unwrap(err))
	case !fi.IsDir():
		return fmt.Errorf("the session's folder %s is a file, not a folder: open the folder that holds it", cwd)
	}
	return nil
}

// open returns the session of a chat, made the first time.
func (s *Server) open(chatID string) *session {
	s.mu.Lock()
	defer s.mu.Unlock()
	sess, ok := s.sessions[chatID]
	if !ok {
		sess = newSession(s, chatID)
		s.sessions[chatID] = sess
	}
	return sess
}

// session returns the session id names, or nil.
func (s *Server) session(id sdk.SessionId) *session {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.sessions[string(id)]
}

// Prompt runs the prompt in the session's chat and answers when the chat's last run of it
// has ended: completed, paused on nothing, or stopped.
func (s *Server) Prompt(ctx context.Context, p sdk.PromptRequest) (sdk.PromptResponse, error) {
	sess := s.session(p.SessionId)
	if sess == nil {
		return sdk.PromptResponse{}, errNoSession(p.SessionId)
	}
	chat, err := s.cfg.DB.Chat(sess.chatID)
	if err != nil {
		return sdk.PromptResponse{}, s.fail(err)
	}
	text, images, err := promptOf(chat.Workspace, p.Prompt)
	if err != nil {
		return sdk.PromptResponse{}, invalid(err.Error())
	}
	t, err := sess.begin(ctx)
	if err != nil {
		return sdk.PromptResponse{StopReason: sdk.StopReasonCancelled}, nil
	}
	defer sess.end(t)
	// a cancel stops the run, and closes a run paused on an approval whose request is out
	stop := context.AfterFunc(ctx, func() { _ = s.agent.Stop(sess.chatID) })
	defer stop()
	out, err := s.agent.RunOnce(ctx, sess.chatID, text, agentloop.RunOptions{Approve: sess.approve(), Images: images})
	if err != nil && out.StopReason == "" {
		if ctx.Err() != nil {
			return sdk.PromptResponse{StopReason: sdk.StopReasonCancelled}, nil
		}
		return sdk.PromptResponse{}, s.fail(err)
	}
	select {
	case <-t.done:
	case <-ctx.Done():
		select {
		case <-t.done:
		case <-time.After(cancelGrace):
			s.cfg.Log.Warn("a cancelled run did not end in time", "chat", sess.chatID)
		}
	}
	if ctx.Err() != nil {
		return sdk.PromptResponse{StopReason: sdk.StopReasonCancelled}, nil
	}
	reason, usage := t.result()
	return sdk.PromptResponse{StopReason: stopReason(reason), Usage: usageOf(usage)}, nil
}

// stopReason is the protocol's word for how the prompt's last run ended.
func stopReason(reason string) sdk.StopReason {
	switch reason {
	case events.StopAborted:
		return sdk.StopReasonCancelled
	case events.StopMaxSteps:
		return sdk.StopReasonMaxTurnRequests
	case events.StopLength:
		return sdk.StopReasonMaxTokens
	default: // completed, error and loop, whose sentence was sent as the agent's text
		return sdk.StopReasonEndTurn
	}
}

// usageOf is a run's token accounting as the protocol counts it.
func usageOf(u *events.Usage) *sdk.Usage {
	if u == nil {
		return nil
	}
	return &sdk.Usage{InputTokens: u.PromptTokens, OutputTokens: u.EvalTokens, TotalTokens: u.PromptTokens + u.EvalTokens}
}
