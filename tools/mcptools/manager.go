package mcptools

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"net/http"
	"net/url"
	"os/exec"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"time"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"prototyper/internal/tether"
	"prototyper/tools"
)

// killTree ends a stdio server's process and all it started (nil: none).
func killTree(p *tether.Process) {
	if p != nil {
		p.Kill()
	}
}

// Timeouts of a [Manager].
const (
	// StartTimeout bounds a server's start: its process (or connection), the MCP handshake
	// and its tool list.
	StartTimeout = 30 * time.Second
	// CallTimeout bounds how long one tool call may go without an answer or a progress
	// notification, unless the server's "timeout" says otherwise.
	CallTimeout = 5 * time.Minute
)

// Prefix starts the name of every MCP tool: mcp__SERVER__TOOL.
const Prefix = tools.ServerToolPrefix

// ToolName is the name the model calls a server's tool by.
func ToolName(server, tool string) string { return Prefix + server + "__" + tool }

// State is a server's state.
type State string

// The states of a server.
const (
	StateStopped  State = "stopped"  // not started yet (or disabled)
	StateRunning  State = "running"  // connected; its tools are offered
	StateFailed   State = "failed"   // failed to start, died or hung: Error says why
	StateDisabled State = "disabled" // configured with "disabled": true
	// StateNotAllowed is a server of a workspace's own file the user has not allowed: it
	// never starts (see [Set]).
	StateNotAllowed State = "not allowed"
)

// Status is what the settings and `prototyper mcp list` show of a server.
type Status struct {
	Name   string   `json:"name"`
	State  State    `json:"state"`
	Source string   `json:"source"`
	Tools  []string `json:"tools"`
	Error  string   `json:"error,omitempty"`
}

// Manager starts the servers of a [Config] on first use and keeps them running; it is safe
// for concurrent use.
type Manager struct {
	// StartTimeout bounds each server's start (0: [StartTimeout]).
	StartTimeout time.Duration

	cfg     Config
	client  *mcp.Client
	mu      sync.Mutex
	servers map[string]*server
	// progress routes a server's progress notifications to the call that asked for them.
	progress sync.Map // progress token → tools.ProgressFunc
	closed   bool
}

// server is one configured server and, once started, its session.
type server struct {
	name    string
	cfg     ServerConfig
	once    sync.Once
	session *mcp.ClientSession
	proc    *tether.Process // a stdio server's process
	tools   []*mcp.Tool
	err     error
	dead    bool
	ended   chan struct{} // closed when the session ends (the server stopped, or Close)
}

// hasEnded reports whether the server's session ended, waiting up to wait for it (or until
// ctx ends).
func (s *server) hasEnded(ctx context.Context, wait time.Duration) bool {
	if s.ended == nil {
		return false
	}
	timer := time.NewTimer(wait)
	defer timer.Stop()
	select {
	case <-s.ended:
		return true
	case <-timer.C:
	case <-ctx.Done():
	}
	return false
}

// callTimeout is how long a call may go without a word from the server.
func (c ServerConfig) callTimeout() time.Duration {
	if c.Timeout > 0 {
		return time.Duration(c.Timeout * float64(time.Second))
	}
	return CallTimeout
}

// NewManager returns a manager of the servers of cfg; nothing starts yet.
func NewManager(cfg Config) *Manager {
	m := &Manager{cfg: cfg, servers: map[string]*server{}}
	m.client = mcp.NewClient(&mcp.Implementation{Name: "prototyper", Version: "0.2.0"}, &mcp.ClientOptions{
		ProgressNotificationHandler: func(_ context.Context, req *mcp.ProgressNotificationClientRequest) {
			if fn, ok := m.progress.Load(fmt.Sprint(req.Params.ProgressToken)); ok {
				fn.(tools.ProgressFunc)(progressUpdate{Progress: req.Params.Progress, Total: req.Params.Total, Message: req.Params.Message})
			}
		},
	})
	for name, sc := range cfg {
		m.servers[name] = &server{name: name, cfg: sc}
	}
	return m
}

// progressUpdate is the update of a tool.progress event from an MCP server.
type progressUpdate struct {
	Progress float64 `json:"progress"`
	Total    float64 `json:"total,omitempty"`
	Message  string  `json:"message,omitempty"`
}

// Tools starts every server not started yet (at once, each within StartTimeout), and again
// every server that stopped since, and returns the tools of those running. A server that
// fails is left out; [Manager.Status] says why.
func (m *Manager) Tools(ctx context.Context) []tools.Tool {
	var wg sync.WaitGroup
	m.mu.Lock()
	list := make([]*server, 0, len(m.servers))
	var stopped []*server
	for name, s := range m.servers {
		if s.dead { // it starts anew: a server that crashed once is not gone for good
			stopped = append(stopped, s)
			s = &server{name: name, cfg: s.cfg}
			m.servers[name] = s
		}
		list = append(list, s)
	}
	m.mu.Unlock()
	for _, s := range stopped {
		killTree(s.proc) // whatever its process left behind
	}
	for _, s := range list {
		wg.Add(1)
		go func() { defer wg.Done(); m.start(ctx, s) }()
	}
	wg.Wait()
	var out []tools.Tool
	m.mu.Lock()
	defer m.mu.Unlock()
	for _, name := range m.cfg.Names() {
		s := m.servers[name]
		if s.session == nil || s.err != nil || s.dead {
			continue
		}
		for _, t := range s.tools {
			out = append(out, &mcpTool{m: m, s: s, tool: t})
		}
	}
	return out
}

// start connects to the server once.
func (m *Manager) start(ctx context.Context, s *server) {
	s.once.Do(func() {
		if s.cfg.Disabled {
			return
		}
		ctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), m.startTimeout())
		defer cancel()
		session, list, err := m.connect(ctx, s)
		m.mu.Lock()
		defer m.mu.Unlock()
		if m.closed && session != nil {
			_ = session.Close()
			return
		}
		s.session, s.tools, s.err = session, list, err
		if session != nil {
			s.ended = make(chan struct{})
			go func() { // a server that exits is failed from then on
				_ = session.Wait()
				m.mu.Lock()
				if !m.closed {
					s.dead = true
				}
				m.mu.Unlock()
				close(s.ended)
			}()
		}
	})
}

func (m *Manager) startTimeout() time.Duration {
	if m.StartTimeout > 0 {
		return m.StartTimeout
	}
	return StartTimeout
}

// connect starts the server and lists its tools.
func (m *Manager) connect(ctx context.Context, s *server) (*mcp.ClientSession, []*mcp.Tool, error) {
	var transport mcp.Transport
	if s.cfg.URL != "" {
		transport = &mcp.StreamableClientTransport{Endpoint: s.cfg.URL, MaxRetries: 2,
			HTTPClient: &http.Client{Transport: headerTransport{cfg: s.cfg, headers: s.cfg.Headers}, CheckRedirect: sameAddress}}
	} else {
		proc, conn, err := startStdio(s.cfg)
		if err != nil {
			return nil, nil, startError(s, ctx, err, m.startTimeout())
		}
		m.mu.Lock()
		s.proc = proc
		m.mu.Unlock()
		transport = &mcp.IOTransport{Reader: conn, Writer: conn}
	}
	session, err := m.client.Connect(ctx, transport, nil)
	if err != nil {
		m.mu.Lock()
		killTree(s.proc) // a server that hangs in the handshake
		m.mu.Unlock()
		return nil, nil, startError(s, ctx, err, m.startTimeout())
	}
	var list []*mcp.Tool
	for t, err := range session.Tools(ctx, nil) {
		if err != nil {
			_ = session.Close()
			return nil, nil, startError(s, ctx, err, m.startTimeout())
		}
		list = append(list, t)
	}
	return session, list, nil
}

// startError is the one sentence of a server that did not start.
func startError(s *server, ctx context.Context, err error, timeout time.Duration) error {
	what := "its command " + s.cfg.Command
	if s.cfg.URL != "" {
		what = "its url " + s.cfg.URL
	}
	switch {
	case errors.Is(ctx.Err(), context.DeadlineExceeded):
		return fmt.Errorf("the MCP server %s did not answer within %s — check %s in %s", s.name, seconds(timeout), what, s.cfg.Source)
	case errors.Is(err, exec.ErrNotFound):
		return fmt.Errorf("the MCP server %s cannot start: %s is not installed or not on the PATH — install it, or fix the command in %s", s.name, s.cfg.Command, s.cfg.Source)
	case errors.Is(err, fs.ErrNotExist) && s.cfg.Command != "":
		return fmt.Errorf("the MCP server %s cannot start: there is no program %s — install it, or fix the command in %s", s.name, s.cfg.Command, s.cfg.Source)
	case (errors.Is(err, fs.ErrPermission) || errors.Is(err, syscall.ENOEXEC)) && s.cfg.Command != "":
		return fmt.Errorf("the MCP server %s cannot start: %s is not a program this computer can run — fix the command in %s", s.name, s.cfg.Command, s.cfg.Source)
	}
	return fmt.Errorf("the MCP server %s failed to start (%v) — check %s in %s", s.name, oneLine(err), what, s.cfg.Source)
}

// startsAgain ends the sentence of a server that stopped: what happens next.
const startsAgain = "Prototyper starts it again at the next message"

// Status says what each server is doing, in name order.
func (m *Manager) Status() []Status {
	m.mu.Lock()
	defer m.mu.Unlock()
	var out []Status
	for _, name := range m.cfg.Names() {
		s := m.servers[name]
		st := Status{Name: name, Source: s.cfg.Source, State: StateStopped, Tools: []string{}}
		switch {
		case s.cfg.Disabled:
			st.State = StateDisabled
		case s.err != nil:
			st.State, st.Error = StateFailed, s.err.Error()
		case s.dead:
			st.State, st.Error = StateFailed, fmt.Sprintf("the MCP server %s stopped — %s", name, startsAgain)
		case s.session != nil:
			st.State = StateRunning
		}
		for _, t := range s.tools {
			st.Tools = append(st.Tools, ToolName(name, t.Name))
		}
		out = append(out, st)
	}
	return out
}

// Close ends every server: the sessions close and their processes end.
func (m *Manager) Close() error {
	m.mu.Lock()
	m.closed = true
	var started []*server
	for _, s := range m.servers {
		if s.session != nil || s.proc != nil {
			started = append(started, s)
		}
	}
	m.mu.Unlock()
	var wg sync.WaitGroup
	for _, s := range started {
		wg.Add(1)
		go func() {
			defer wg.Done()
			if s.session != nil {
				_ = s.session.Close() // closes stdin, waits a second, then signals
			}
			killTree(s.proc)
		}()
	}
	wg.Wait()
	return nil
}

// mcpTool is one tool of a server, as the agent calls it.
type mcpTool struct {
	m    *Manager
	s    *server
	tool *mcp.Tool
}

func (t *mcpTool) Definition() tools.Definition {
	schema, err := json.Marshal(t.tool.InputSchema)
	if err != nil || string(schema) == "null" {
		schema = json.RawMessage(`{"type":"object"}`)
	}
	desc := t.tool.Description
	if desc == "" {
		desc = t.tool.Title
	}
	return tools.Definition{Name: ToolName(t.s.name, t.tool.Name), Description: desc, Schema: schema,
		Mode: tools.Sequential, DefaultApproval: tools.ApprovalAsk}
}

var callSeq atomic.Int64

// errCallTimeout is the cause of a call's end when its server said nothing for its timeout.
var errCallTimeout = errors.New("the MCP server said nothing for the call's timeout")

// Execute calls the tool. The call ends when the server answers, when ctx ends (the run
// stopped: the server is told to cancel it), when the server stops, or when the server said
// nothing for its timeout: each is one sentence.
func (t *mcpTool) Execute(ctx context.Context, call tools.Call, progress tools.ProgressFunc) (tools.Result, error) {
	t.m.mu.Lock()
	dead := t.s.dead
	t.m.mu.Unlock()
	if dead {
		return tools.Result{}, fmt.Errorf("the MCP server %s stopped — not run; %s", t.s.name, startsAgain)
	}
	args := map[string]any(call.Args)
	if args == nil {
		args = map[string]any{}
	}
	params := &mcp.CallToolParams{Name: t.tool.Name, Arguments: args}
	// The timeout counts the server's silence: each progress notification starts it again.
	timeout := t.s.cfg.callTimeout()
	callCtx, cancel := context.WithCancelCause(ctx)
	defer cancel(nil)
	silence := time.AfterFunc(timeout, func() { cancel(errCallTimeout) })
	defer silence.Stop()
	token := fmt.Sprintf("%s-%d", call.ID, callSeq.Add(1))
	params.SetProgressToken(token)
	t.m.progress.Store(token, tools.ProgressFunc(func(update any) {
		silence.Reset(timeout)
		if progress != nil {
			progress(update)
		}
	}))
	defer t.m.progress.Delete(token)
	res, err := t.s.session.CallTool(callCtx, params)
	if err != nil {
		return tools.Result{}, t.callError(ctx, callCtx, err, timeout)
	}
	return tools.Result{Content: resultText(res), IsError: res.IsError}, nil
}

// endWait is how long a call that failed without the server's answer waits to learn whether
// its server stopped: the end of the connection (a stdio server's output ended, an HTTP server
// could not be reached again, or only through a gateway that says so) fails the call first,
// and ends the session right after. A call the server answered with an error (an unknown
// tool, arguments it refuses) does not wait: the server runs.
const endWait = time.Second

// callError is the one sentence of a call that got no result.
func (t *mcpTool) callError(ctx, callCtx context.Context, err error, timeout time.Duration) error {
	switch {
	case ctx.Err() != nil:
		return t.stopped()
	case errors.Is(context.Cause(callCtx), errCallTimeout):
		return fmt.Errorf("the MCP server %s said nothing about this call for %s, so Prototyper gave up on it — the server may be stuck; if its tools take that long, raise its \"timeout\" (seconds) in %s", t.s.name, seconds(timeout), t.s.cfg.Source)
	case serverAnswer(err) != "": // the server runs: no end of it to wait for
		return fmt.Errorf("the MCP server %s refused the call: %s", t.s.name, serverAnswer(err))
	case t.s.hasEnded(ctx, endWait):
		return fmt.Errorf("the MCP server %s stopped during this call, which did not complete — %s", t.s.name, startsAgain)
	case ctx.Err() != nil:
		return t.stopped()
	}
	return fmt.Errorf("the MCP server %s failed the call: %s", t.s.name, oneLine(err))
}

// connectionCodes are the codes of the errors the SDK makes of its own connection's state
// (an unknown failure, the client or the server closing, a request the transport refused):
// they are no answer of the server.
var connectionCodes = []int64{-32001, -32003, -32004, -32005}

// serverAnswer is the reason of err when it is the server's answer to the call (a JSON-RPC
// error response: an unknown tool, arguments it refuses), or "".
func serverAnswer(err error) string {
	var answer *jsonrpc.Error
	if !errors.As(err, &answer) || slices.Contains(connectionCodes, answer.Code) {
		return ""
	}
	return firstLine(answer.Message)
}

// stopped is the sentence of a call whose run was stopped while the server ran it.
func (t *mcpTool) stopped() error {
	return fmt.Errorf("stopped: the run was stopped while the MCP server %s ran this call; it was asked to cancel it, and may or may not have completed it", t.s.name)
}

// resultText is what the model reads of a result: its text, and a note for other content.
func resultText(res *mcp.CallToolResult) string {
	var parts []string
	for _, c := range res.Content {
		switch c := c.(type) {
		case *mcp.TextContent:
			parts = append(parts, c.Text)
		case *mcp.ImageContent:
			parts = append(parts, fmt.Sprintf("[an image, %s, %d bytes]", c.MIMEType, len(c.Data)))
		default:
			raw, _ := json.Marshal(c)
			parts = append(parts, string(raw))
		}
	}
	if len(parts) == 0 && res.StructuredContent != nil {
		raw, _ := json.Marshal(res.StructuredContent)
		parts = append(parts, string(raw))
	}
	return strings.Join(parts, "\n")
}

// headerTransport adds a server's configured headers to each request (${NAME} taken from the
// app's environment only in the user's own files: see [ServerConfig.expand]).
type headerTransport struct {
	cfg     ServerConfig
	headers map[string]string
}

func (h headerTransport) RoundTrip(r *http.Request) (*http.Response, error) {
	r = r.Clone(r.Context())
	if u, err := url.Parse(h.cfg.URL); err == nil && sameOrigin(u, r.URL) { // its key, to its address only
		for k, v := range h.headers {
			r.Header.Set(k, h.cfg.expand(v))
		}
	}
	return http.DefaultTransport.RoundTrip(r)
}

// sameAddress lets a server redirect within its own address (scheme, host and port) only: a
// redirect elsewhere would take the server's headers (a key) and the calls' arguments there.
func sameAddress(req *http.Request, via []*http.Request) error {
	if len(via) >= 10 {
		return errors.New("stopped after 10 redirects")
	}
	if !sameOrigin(via[0].URL, req.URL) {
		return fmt.Errorf("the server redirected to %s, another address, which Prototyper does not follow with the server's headers and calls; put that address in the server's url if you trust it", req.URL.Redacted())
	}
	return nil
}

func sameOrigin(a, b *url.URL) bool {
	return strings.EqualFold(a.Scheme, b.Scheme) && strings.EqualFold(a.Host, b.Host)
}

// seconds says d in seconds, the unit of a server's "timeout": "2 s", "300 s".
func seconds(d time.Duration) string { return fmt.Sprintf("%g s", d.Seconds()) }

func oneLine(err error) string { return firstLine(err.Error()) }

// firstLine is the first line of s, trimmed.
func firstLine(s string) string {
	s = strings.TrimSpace(s)
	if i := strings.IndexByte(s, '\n'); i >= 0 {
		s = s[:i]
	}
	return s
}
