package main

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"sync"
	"time"

	"github.com/wailsapp/wails/v2/pkg/runtime"

	"prototyper/agentloop"
	"prototyper/agentloop/ollama"
	"prototyper/events"
	"prototyper/events/wailssink"
	"prototyper/internal/cli"
	"prototyper/store"
	"prototyper/tools"
)

// App is the thin facade bound to the frontend: every exported method is callable from the
// window. It holds no logic of its own: commands go to the agent and the store, paint
// acknowledgements to the event bridge.
type App struct {
	opts    cli.DesktopOptions
	exitErr error // set when startup fails; main reports it after the window closes

	ctx    context.Context
	dbPath string
	db     *store.DB
	bridge *events.Bridge
	agent  *agentloop.Agent
	model  *switchableModel

	mu        sync.Mutex
	workspace string // the folder of new chats: --workspace, else the settings'
	modelName string // the model of the next message: --model, else the settings'
	ollamaURL string // --ollama, else the settings', else OLLAMA_HOST, else the default
	client    *ollama.Client
	pulling   map[string]context.CancelFunc
}

// NewApp returns the facade for the desktop options. It opens nothing: startup does.
func NewApp(opts cli.DesktopOptions) *App {
	return &App{opts: opts, pulling: map[string]context.CancelFunc{}}
}

// startup opens the store and assembles the agent. A second instance on the same database
// gets the store's "Prototyper is already running" error and quits.
func (a *App) startup(ctx context.Context) {
	a.mu.Lock()
	a.ctx = ctx
	a.mu.Unlock()
	if err := a.open(ctx); err != nil {
		a.mu.Lock()
		a.exitErr = err // main prints it once the window has closed
		a.mu.Unlock()
		runtime.Quit(ctx)
	}
}

func (a *App) open(ctx context.Context) error {
	path, err := a.opts.DBPath()
	if err != nil {
		return err
	}
	db, err := store.Open(path, store.Options{})
	if err != nil {
		return err
	}
	settings, err := db.Settings()
	if err != nil {
		db.Close()
		return err
	}
	// Wails runs startup beside the page's first calls: the fields are published under a.mu.
	a.mu.Lock()
	defer a.mu.Unlock()
	a.dbPath = path
	a.workspace = firstNonEmpty(a.opts.Workspace, settings.Workspace)
	if a.workspace != "" {
		if abs, err := filepath.Abs(a.workspace); err == nil {
			a.workspace = abs
		}
	}
	a.modelName = firstNonEmpty(a.opts.Model, settings.DefaultModel)
	if err := a.useOllama(firstNonEmpty(a.opts.Ollama, settings.OllamaURL)); err != nil {
		db.Close()
		return err
	}

	var opts []events.Option
	if settings.CoalesceMs > 0 {
		opts = append(opts, events.WithFallback(time.Duration(settings.CoalesceMs)*time.Millisecond))
	}
	bridge, err := events.NewBridge(wailssink.New(ctx), opts...)
	if err != nil {
		db.Close()
		return err
	}
	a.db, a.bridge = db, bridge
	a.agent = agentloop.NewAgent(agentloop.Config{
		Model:   a.model,
		Store:   db,
		Emitter: bridge,
		Tools: agentloop.WorkspaceTools(tools.WorkspaceOptions{
			ProtectedDirs:  []string{filepath.Dir(db.Path())},
			ProtectedFiles: []string{db.Path()},
		}),
	})
	return nil
}

// useOllama points the app (and the runs that start from now on) at the server of raw.
func (a *App) useOllama(raw string) error {
	base, err := ollama.ResolveHost(raw)
	if err != nil {
		return err
	}
	client := ollama.New(base)
	a.ollamaURL, a.client = base.String(), client
	if a.model == nil {
		a.model = &switchableModel{}
	}
	a.model.set(agentloop.NewOllamaModel(client))
	return nil
}

// beforeClose stops the runs before the window goes: each keeps its partial answer and tool
// records and ends aborted, within a second.
func (a *App) beforeClose(ctx context.Context) (prevent bool) {
	if _, agent, _ := a.parts(); agent != nil {
		stopCtx, cancel := context.WithTimeout(context.Background(), time.Second)
		defer cancel()
		if err := agent.Shutdown(stopCtx); err != nil {
			fmt.Fprintln(os.Stderr, "prototyper:", err)
		}
	}
	return false
}

func (a *App) shutdown(ctx context.Context) {
	a.beforeClose(ctx) // idempotent; covers a quit that skipped the close button
	db, _, bridge := a.parts()
	if bridge != nil {
		_ = bridge.Close()
	}
	a.mu.Lock()
	for _, cancel := range a.pulling {
		cancel()
	}
	a.mu.Unlock()
	if db != nil {
		if err := db.Close(); err != nil {
			fmt.Fprintln(os.Stderr, "prototyper:", err)
		}
	}
}

// ready reports the startup error, if any, so that no method touches a missing store. The
// store, agent and bridge never change once published.
func (a *App) ready() error {
	a.mu.Lock()
	defer a.mu.Unlock()
	if a.db == nil || a.agent == nil {
		if a.exitErr != nil {
			return a.exitErr
		}
		return errors.New("Prototyper is still starting; try again in a moment")
	}
	return nil
}

// Config is what the window shows in its header and settings: the settings in effect, the
// tools, and where the database is.
type Config struct {
	Settings
	Tools  []string `json:"tools"`
	DBPath string   `json:"dbPath"`
}

// Config returns the settings in effect, with the flags applied and every tool's policy.
func (a *App) Config() (Config, error) {
	if err := a.ready(); err != nil {
		return Config{}, err
	}
	s, err := a.db.Settings()
	if err != nil {
		return Config{}, err
	}
	a.mu.Lock()
	defer a.mu.Unlock()
	c := Config{Settings: Settings{Workspace: a.workspace, Model: a.modelName, OllamaURL: a.ollamaURL,
		Think: firstNonEmpty(s.Think, "on"), ContextCap: s.ContextCap, ToolApproval: map[string]string{},
		FirstByteTimeoutSec: s.FirstByteTimeoutSec},
		DBPath: a.dbPath}
	if c.ContextCap <= 0 {
		c.ContextCap = agentloop.DefaultContextCap
	}
	for _, d := range tools.WorkspaceDefinitions() {
		c.Tools = append(c.Tools, d.Name)
		c.ToolApproval[d.Name] = agentloop.Policy(s.ToolApproval, d)
	}
	return c, nil
}

// Settings is what the settings panel saves.
type Settings struct {
	Workspace    string            `json:"workspace"`
	Model        string            `json:"model"`
	OllamaURL    string            `json:"ollamaUrl"`
	Think        string            `json:"think"`
	ContextCap   int               `json:"contextCap"`
	ToolApproval map[string]string `json:"toolApproval"`
	// FirstByteTimeoutSec: how long to wait for a model to start answering (0: the default).
	FirstByteTimeoutSec int `json:"firstByteTimeoutSec"`
}

// SaveSettings stores the settings; a new Ollama URL applies to the runs that start next.
func (a *App) SaveSettings(in Settings) error {
	if err := a.ready(); err != nil {
		return err
	}
	if _, err := ollama.ParseThink(in.Think); err != nil {
		return err
	}
	if in.ContextCap < 0 {
		return errors.New("the context cap must be a positive number of tokens")
	}
	if in.FirstByteTimeoutSec < 0 {
		return errors.New("the wait for a model to start answering must be a positive number of seconds, or 0 for the default")
	}
	for name, p := range in.ToolApproval {
		if _, err := agentloop.ParseApproval(p); err != nil {
			return fmt.Errorf("tool %s: %w", name, err)
		}
	}
	a.mu.Lock()
	defer a.mu.Unlock()
	if strings.TrimSpace(in.OllamaURL) != "" && in.OllamaURL != a.ollamaURL {
		if err := a.useOllama(in.OllamaURL); err != nil {
			return err
		}
	}
	if in.Workspace != "" {
		a.workspace = in.Workspace
	}
	if in.Model != "" {
		a.modelName = in.Model
	}
	return a.updateSettings(func(s *store.Settings) {
		s.OllamaURL, s.Think, s.ContextCap, s.ToolApproval = a.ollamaURL, in.Think, in.ContextCap, in.ToolApproval
		s.FirstByteTimeoutSec = in.FirstByteTimeoutSec
		s.Workspace, s.DefaultModel = a.workspace, a.modelName
	})
}

// updateSettings edits the stored settings.
func (a *App) updateSettings(edit func(*store.Settings)) error {
	s, err := a.db.Settings()
	if err != nil {
		return err
	}
	edit(&s)
	return a.db.PutSettings(s)
}

// SetModel makes name the model of the next message, and the default of new chats.
func (a *App) SetModel(name string) error {
	if err := a.ready(); err != nil {
		return err
	}
	a.mu.Lock()
	a.modelName = name
	a.mu.Unlock()
	return a.updateSettings(func(s *store.Settings) { s.DefaultModel = name })
}

// PickWorkspace asks for a folder with the native dialog and makes it the workspace of new
// chats; it returns "" when the user cancels.
func (a *App) PickWorkspace() (string, error) {
	if err := a.ready(); err != nil {
		return "", err
	}
	a.mu.Lock()
	current := a.workspace
	a.mu.Unlock()
	dir, err := runtime.OpenDirectoryDialog(a.ctx, runtime.OpenDialogOptions{
		Title: "Open a workspace folder", DefaultDirectory: current, CanCreateDirectories: true})
	if err != nil || dir == "" {
		return "", err
	}
	a.mu.Lock()
	a.workspace = dir
	a.mu.Unlock()
	return dir, a.updateSettings(func(s *store.Settings) { s.Workspace = dir })
}

// ListChats returns the chats, newest first.
func (a *App) ListChats() ([]agentloop.ChatSummary, error) {
	if err := a.ready(); err != nil {
		return nil, err
	}
	return a.agent.Summaries()
}

// NewChat creates an empty chat in the current workspace with the current model.
func (a *App) NewChat() (agentloop.ChatSummary, error) {
	if err := a.ready(); err != nil {
		return agentloop.ChatSummary{}, err
	}
	a.mu.Lock()
	c := store.Chat{Workspace: a.workspace, Model: a.modelName}
	a.mu.Unlock()
	c, err := a.db.CreateChat(c)
	if err != nil {
		return agentloop.ChatSummary{}, err
	}
	return a.agent.Summary(c), nil
}

// RenameChat gives a chat a new title.
func (a *App) RenameChat(id, title string) error {
	if err := a.ready(); err != nil {
		return err
	}
	title = strings.TrimSpace(title)
	if title == "" {
		return errors.New("a chat needs a title: type one, or press Esc to keep the old one")
	}
	_, err := a.db.RenameChat(id, title)
	return err
}

// DeleteChat stops the chat's run, if any, and deletes the chat with its messages.
func (a *App) DeleteChat(id string) error {
	if err := a.ready(); err != nil {
		return err
	}
	if a.agent.Phase(id).Busy() {
		if err := a.agent.Stop(id); err != nil {
			return err
		}
	}
	return a.db.DeleteChat(id)
}

// OpenChat reads one chat from the store, as the window shows it.
func (a *App) OpenChat(id string) (agentloop.OpenedChat, error) {
	if err := a.ready(); err != nil {
		return agentloop.OpenedChat{}, err
	}
	return a.agent.Open(id)
}

// SendResult names the chat a message went to (a new one when the window sent none).
type SendResult struct {
	ChatID string `json:"chatId"`
}

// Send submits a message. With no chat, one is created in the current workspace. The current
// model becomes the chat's. A message sent while the chat is busy steers the running agent.
func (a *App) Send(chatID, prompt string) (SendResult, error) {
	if err := a.ready(); err != nil {
		return SendResult{}, err
	}
	if strings.TrimSpace(prompt) == "" {
		return SendResult{}, errors.New("the message is empty: type what you want built")
	}
	a.mu.Lock()
	workspace, model := a.workspace, a.modelName
	a.mu.Unlock()
	if model == "" {
		return SendResult{}, errors.New("no model is selected: pick one in the header (or pull one)")
	}
	var id string
	var err error
	if chatID == "" {
		if workspace == "" {
			return SendResult{}, errors.New("no workspace folder is open: pick one in the header")
		}
		// The agent checks the message before it creates the chat: a refused one leaves none.
		id, err = a.agent.SendNew(a.ctx, store.Chat{Workspace: workspace, Model: model}, prompt)
	} else if _, err = a.db.UpdateChat(chatID, func(c *store.Chat) { c.Model = model }); err == nil {
		id, err = a.agent.Send(a.ctx, chatID, prompt)
	}
	if err != nil {
		return SendResult{ChatID: id}, err
	}
	// What the user last worked with is what the next start presets.
	return SendResult{ChatID: id}, a.updateSettings(func(s *store.Settings) {
		s.DefaultModel = model
		if workspace != "" {
			s.Workspace = workspace
		}
	})
}

// PromptBudget is how long a message to the chat (or a new chat, for "") with model may be,
// for the composer's warning while the user types or pastes.
func (a *App) PromptBudget(chatID, model string) (agentloop.Budget, error) {
	if err := a.ready(); err != nil {
		return agentloop.Budget{}, err
	}
	return a.agent.Budget(a.ctx, chatID, model)
}

// Stop stops the chat's run; its partial answer stays.
func (a *App) Stop(chatID string) error {
	if err := a.ready(); err != nil {
		return err
	}
	return a.agent.Stop(chatID)
}

// Decide answers a tool call that waits for approval: allow or deny, with a reason.
func (a *App) Decide(toolCallID, decision, reason string) error {
	if err := a.ready(); err != nil {
		return err
	}
	return a.agent.Decide(toolCallID, decision, reason)
}

// OllamaStatus says whether the server answers, for the "Ollama is not running" panel.
type OllamaStatus struct {
	Running bool   `json:"running"`
	URL     string `json:"url"`
	Version string `json:"version"`
	Error   string `json:"error"`
}

// OllamaStatus asks the server for its version.
func (a *App) OllamaStatus() OllamaStatus {
	client, url := a.ollama()
	if client == nil {
		return OllamaStatus{URL: url, Error: a.ready().Error()}
	}
	ctx, cancel := context.WithTimeout(a.ctx, 5*time.Second)
	defer cancel()
	v, err := client.Version(ctx)
	if err != nil {
		return OllamaStatus{URL: url, Error: err.Error()}
	}
	return OllamaStatus{Running: true, URL: url, Version: v}
}

func (a *App) ollama() (*ollama.Client, string) {
	a.mu.Lock()
	defer a.mu.Unlock()
	return a.client, a.ollamaURL
}

// ModelInfo is one model of the picker.
type ModelInfo struct {
	Name          string `json:"name"`
	Size          int64  `json:"size"`
	ParameterSize string `json:"parameterSize"`
	Family        string `json:"family"`
	Tools         bool   `json:"tools"`
	Thinking      bool   `json:"thinking"`
	ContextLength int    `json:"contextLength"`
}

// Models lists the server's models with their capabilities and context length.
func (a *App) Models() ([]ModelInfo, error) {
	client, _ := a.ollama()
	if client == nil {
		return nil, a.ready()
	}
	ctx, cancel := context.WithTimeout(a.ctx, 30*time.Second)
	defer cancel()
	list, err := client.List(ctx)
	if err != nil {
		return nil, err
	}
	out := make([]ModelInfo, len(list))
	var wg sync.WaitGroup
	for i, m := range list {
		out[i] = ModelInfo{Name: m.Name, Size: m.Size, ParameterSize: m.ParameterSize, Family: m.Family}
		wg.Add(1)
		go func() {
			defer wg.Done()
			if info, err := client.Show(ctx, m.Name); err == nil {
				out[i].Tools, out[i].Thinking = info.Has("tools"), info.Has("thinking")
				out[i].ContextLength = info.ContextLength
			}
		}()
	}
	wg.Wait()
	sort.Slice(out, func(i, j int) bool { return out[i].Name < out[j].Name })
	return out, nil
}

// PullProgress is one "pull:progress" event.
type PullProgress struct {
	Name      string `json:"name"`
	Status    string `json:"status"`
	Digest    string `json:"digest,omitempty"`
	Total     int64  `json:"total,omitempty"`
	Completed int64  `json:"completed,omitempty"`
}

// PullModel downloads a model, reporting progress as "pull:progress" events (at most ten a
// second, and every change of status); it returns when the pull ends.
func (a *App) PullModel(name string) error {
	client, _ := a.ollama()
	if client == nil {
		return a.ready()
	}
	name = strings.TrimSpace(name)
	if name == "" {
		return errors.New("name the model to pull, e.g. qwen3:4b")
	}
	ctx, cancel := context.WithCancel(a.ctx)
	a.mu.Lock()
	if _, busy := a.pulling[name]; busy {
		a.mu.Unlock()
		cancel()
		return fmt.Errorf("%s is already being pulled", name)
	}
	a.pulling[name] = cancel
	a.mu.Unlock()
	defer func() {
		a.mu.Lock()
		delete(a.pulling, name)
		a.mu.Unlock()
		cancel()
	}()
	var last time.Time
	var lastStatus string
	err := client.Pull(ctx, name, func(p ollama.PullProgress) error {
		if now := time.Now(); p.Status != lastStatus || now.Sub(last) >= 100*time.Millisecond || p.Total > 0 && p.Completed == p.Total {
			last, lastStatus = now, p.Status
			runtime.EventsEmit(a.ctx, "pull:progress", PullProgress{Name: name, Status: p.Status,
				Digest: p.Digest, Total: p.Total, Completed: p.Completed})
		}
		return nil
	})
	if err == nil {
		runtime.EventsEmit(a.ctx, "pull:progress", PullProgress{Name: name, Status: "success"})
	}
	return err
}

// Painted acknowledges the batch ending at seq: the window applied it and painted a frame,
// with the tool cards of runningToolCallIDs in the DOM as running.
func (a *App) Painted(seq uint64, runningToolCallIDs []string) {
	if _, _, bridge := a.parts(); bridge != nil {
		bridge.Painted(seq, runningToolCallIDs)
	}
}

// SetVisible tells the bridge whether the window can paint; hidden, it waits for no ack.
func (a *App) SetVisible(visible bool) {
	if _, _, bridge := a.parts(); bridge != nil {
		bridge.SetVisible(visible)
	}
}

// raiseWindow brings the window to the front: a second launch on the same database asked.
func (a *App) raiseWindow() {
	a.mu.Lock()
	ctx := a.ctx
	a.mu.Unlock()
	if ctx != nil {
		runtime.WindowUnminimise(ctx) // gtk_window_present: shows, raises and focuses
		runtime.WindowShow(ctx)
	}
}

// startupErr is why startup failed, if it did.
func (a *App) startupErr() error {
	a.mu.Lock()
	defer a.mu.Unlock()
	return a.exitErr
}

// parts returns what startup published (nil before it, or when it failed).
func (a *App) parts() (*store.DB, *agentloop.Agent, *events.Bridge) {
	a.mu.Lock()
	defer a.mu.Unlock()
	return a.db, a.agent, a.bridge
}

// switchableModel is the agent's model, re-pointed when the user changes the Ollama URL;
// the next model request goes to the new server.
type switchableModel struct {
	mu    sync.RWMutex
	inner *agentloop.OllamaModel
}

func (m *switchableModel) set(inner *agentloop.OllamaModel) {
	m.mu.Lock()
	m.inner = inner
	m.mu.Unlock()
}

func (m *switchableModel) get() *agentloop.OllamaModel {
	m.mu.RLock()
	defer m.mu.RUnlock()
	return m.inner
}

func (m *switchableModel) Chat(ctx context.Context, req agentloop.ModelRequest, fn agentloop.DeltaFunc) (agentloop.ModelTurn, error) {
	return m.get().Chat(ctx, req, fn)
}

func (m *switchableModel) SupportsTools(ctx context.Context, model string) (ok, known bool) {
	return m.get().SupportsTools(ctx, model)
}

func (m *switchableModel) ContextLength(ctx context.Context, model string) (int, error) {
	return m.get().ContextLength(ctx, model)
}

func firstNonEmpty(vals ...string) string {
	for _, v := range vals {
		if strings.TrimSpace(v) != "" {
			return v
		}
	}
	return ""
}
