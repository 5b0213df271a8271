package desktop

import (
	"context"
	"encoding/base64"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"time"

	"prototyper/agentloop"
	"prototyper/events"
	"prototyper/internal/cli"
	"prototyper/model"
	"prototyper/model/managed"
	"prototyper/model/ollama"
	"prototyper/preview"
	"prototyper/store"
	"prototyper/tools"
	"prototyper/tools/mcptools"
)

// Desktop is the desktop window's side of the app, without the window: it assembles for the
// window what `prototyper run` assembles for the terminal (the store, the agent, the model
// server, the MCP servers), keeps the workspace and the model of the next message (the
// flags' when given, else the settings'), and remembers what the user last worked with.
// app.go binds its methods to the frontend and gives it the window's sink; nothing here
// imports Wails, so a test drives a Desktop as the window does. Its methods are safe for
// concurrent use.
type Desktop struct {
	db     *store.DB
	bridge *events.Bridge
	agent  *agentloop.Agent
	server *model.Server
	pulls  ollama.Pulls
	// serve is the Ollama server the window starts when nothing answers at a local address.
	serve *managed.Server
	mcp   *mcptools.Set // the MCP servers, ended by Close
	// preview serves the workspace's pages to the Preview pane (preview.go).
	preview *preview.Room
	// servers are the development servers the agent started (servers.go).
	servers *tools.Servers

	mu        sync.Mutex                    // orders the changes of the fields below and of the stored settings
	workspace string                        // the folder of new chats
	model     string                        // the model of the next message
	preloads  uint64                        // how many preloads were asked: only the latest one waits
	checks    map[string]context.CancelFunc // the model checks under way, by model (modelcheck.go)

	life    context.Context // ends with Close: the preloads' context
	endLife context.CancelFunc
	// mayLoad wakes the preload waiting for the server or its model: OllamaStatus found the
	// server answering, the server's models were listed, a pull ended.
	mayLoad wakeup
}

// OpenDesktop opens the database of opts and assembles the agent, whose events go through a
// bridge to sink. A database another process holds is the store's "Prototyper is already
// running" error.
func OpenDesktop(opts cli.DesktopOptions, sink events.Sink) (*Desktop, error) {
	db, err := opts.OpenDB(store.Options{})
	if err != nil {
		return nil, err
	}
	d, err := assembleDesktop(db, opts, sink)
	if err != nil {
		db.Close()
		return nil, err
	}
	return d, nil
}

func assembleDesktop(db *store.DB, opts cli.DesktopOptions, sink events.Sink) (*Desktop, error) {
	settings, err := db.Settings()
	if err != nil {
		return nil, err
	}
	server, err := desktopServer(opts, settings)
	if err != nil {
		return nil, err
	}
	// the window paints at the display's rate: text goes one batch ahead of its ack
	bridgeOpts := []events.Option{events.WithTextAhead()}
	if fallback := settings.AckFallback(); fallback > 0 {
		bridgeOpts = append(bridgeOpts, events.WithFallback(fallback))
	}
	bridge, err := events.NewBridge(sink, bridgeOpts...)
	if err != nil {
		return nil, err
	}
	workspace := cli.FirstNonBlank(opts.Workspace, settings.Workspace)
	if workspace != "" {
		if abs, err := filepath.Abs(workspace); err == nil {
			workspace = abs
		}
	}
	if workspace != "" { // the folder the app was started with is the first of the recent ones
		if _, err := db.UpdateSettings(func(s *store.Settings) error { s.RememberFolder(workspace); return nil }); err != nil {
			return nil, err
		}
	}
	mcpServers, err := opts.MCPFlags.Set()
	if err != nil {
		return nil, err
	}
	pv := &previewTools{}
	servers := newDevServers(bridge)
	d := &Desktop{servers: servers, db: db, bridge: bridge, server: server, serve: newManagedServer(db), mcp: mcpServers,
		agent:     agentloop.Wire(db, server, bridge, agentloop.WireOptions{Extra: extraTools{mcpServers, pv}, ConfigFiles: opts.MCPFlags.Files(), Servers: servers}),
		workspace: workspace, model: cli.FirstNonBlank(opts.Model, settings.DefaultModel)}
	d.preview = newPreviewRoom(d.agent.FileOptions(), bridge)
	pv.room = d.preview
	d.life, d.endLife = context.WithCancel(context.Background())
	mcpServers.Trust = cli.StoredTrust(db)
	if err := d.agent.FinishInterrupted(d.life); err != nil { // an undo the app died in; its chat's next undo tries again
		fmt.Fprintln(os.Stderr, "prototyper:", err)
	}
	d.useMCPSettings(settings)
	d.startMCP(workspace)
	d.preload() // the app starts with a model: its first message should not wait for the load
	return d, nil
}

// preloadWait bounds a load (a large model on a slow disk takes minutes).
const preloadWait = 10 * time.Minute

// preloadBackoff is how long a preload waits for the server or its model before it asks
// again: first, then doubling up to longest.
var preloadBackoff = struct{ first, longest time.Duration }{time.Second, 15 * time.Second}

// preload loads the session's model on the server in the background, the way the next
// message will ask for it (agentloop.Agent.Preload), as soon as the server has it: at start
// the window may have to start the server first, or the user to start it and press Retry;
// the model may come later still (pulled in the window or with `ollama pull`). Until then it
// asks again with backoff (1 s doubling to 15 s) and at once when [Desktop.mayLoad] wakes it.
// Only the latest preload waits: an older one, and one for a model the user left, stops. A
// failure other than the server or the model not being there yet is left for the next
// message to say.
func (d *Desktop) preload() {
	d.mu.Lock()
	d.preloads++
	model, n := d.model, d.preloads
	d.mu.Unlock()
	if model == "" {
		return
	}
	backoff := preloadBackoff
	go func() {
		for wait := backoff.first; ; wait = min(2*wait, backoff.longest) {
			woken := d.mayLoad.wait() // taken before asking: news meanwhile wakes this
			if !d.stillPreloading(model, n) || !d.loadNotThereYet(model) {
				return
			}
			select {
			case <-woken:
			case <-time.After(wait):
			case <-d.life.Done():
				return
			}
		}
	}()
}

// stillPreloading reports whether the n-th preload, of model, is the latest and the user
// still works with model.
func (d *Desktop) stillPreloading(model string, n uint64) bool {
	d.mu.Lock()
	defer d.mu.Unlock()
	return d.model == model && d.preloads == n && d.life.Err() == nil
}

// Agent is the agent of the window's chats.
func (d *Desktop) Agent() *agentloop.Agent { return d.agent }

// Bridge is where the agent's events, and the pulls' progress, go to the window.
func (d *Desktop) Bridge() *events.Bridge { return d.bridge }

// DBPath is the database file's absolute path.
func (d *Desktop) DBPath() string { return d.db.Path() }

// Stop stops the runs within ctx: each keeps its partial answer and tool records and ends
// aborted. It may be called more than once.
func (d *Desktop) Stop(ctx context.Context) error { return d.agent.Shutdown(ctx) }

// Close stops the runs (within a second) and the pulls, delivers what the bridge still
// holds, stops the Ollama server the window started (never the user's) and closes the
// database.
func (d *Desktop) Close() error {
	ctx, cancel := context.WithTimeout(context.Background(), time.Second)
	defer cancel()
	stopErr := d.Stop(ctx)
	d.endLife()
	d.pulls.Close()
	d.serve.Stop()
	_ = d.mcp.Close()
	d.servers.Close()
	_ = d.preview.Close()
	_ = d.bridge.Close()
	return errors.Join(stopErr, d.db.Close())
}

// session returns the workspace of new chats and the model of the next message.
func (d *Desktop) session() (workspace, model string) {
	d.mu.Lock()
	defer d.mu.Unlock()
	return d.workspace, d.model
}

// PromptBudget is how long a message to the chat (or to a new one in the session's folder, for
// "") with model may be.
func (d *Desktop) PromptBudget(ctx context.Context, chatID, model string) (agentloop.Budget, error) {
	workspace, _ := d.session()
	return d.agent.BudgetIn(ctx, chatID, workspace, model)
}

// Workspace is the folder of new chats ("" before one was chosen).
func (d *Desktop) Workspace() string {
	workspace, _ := d.session()
	return workspace
}

// SetWorkspace makes dir the folder of new chats, now and at the next start.
func (d *Desktop) SetWorkspace(dir string) error {
	return d.choose(func() { d.workspace = dir; d.startMCP(dir) }, func(s *store.Settings) { s.Workspace = dir; s.RememberFolder(dir) })
}

// SetModel makes name the model of the next message, and the default of new chats, and
// loads it on the server in the background, so that the message does not wait for it.
func (d *Desktop) SetModel(name string) error {
	err := d.choose(func() { d.model = name }, func(s *store.Settings) { s.DefaultModel = name })
	d.preload() // picked now, asked soon: loaded while the user types
	return err
}

// SetSidebar saves whether the window shows its list of chats (store.Sidebar*), for this
// start and the next.
func (d *Desktop) SetSidebar(choice string) error {
	return d.choose(func() {}, func(s *store.Settings) { s.Sidebar = choice })
}

// choose applies a choice of the user to the session (apply) and to the stored settings (save),
// both under d.mu, so that two choices never save in another order than they were made.
func (d *Desktop) choose(apply func(), save func(*store.Settings)) error {
	d.mu.Lock()
	defer d.mu.Unlock()
	apply()
	_, err := d.db.UpdateSettings(func(s *store.Settings) error { save(s); return nil })
	return err
}

// NewChat creates an empty chat in the current workspace with the current model.
func (d *Desktop) NewChat() (agentloop.ChatSummary, error) {
	workspace, model := d.session()
	c, err := d.db.CreateChat(store.Chat{Workspace: workspace, Model: model})
	if err != nil {
		return agentloop.ChatSummary{}, err
	}
	return d.agent.Summary(c), nil
}

// SaveDraft keeps the text typed in a chat's box and not sent ("" for the chat the window
// starts with its first message), so that quitting the app loses none of it.
func (d *Desktop) SaveDraft(chatID, text string) error { return d.db.SaveDraft(chatID, text) }

// Drafts returns the unsent text of each chat, by chat id.
func (d *Desktop) Drafts() (map[string]string, error) { return d.db.Drafts() }

// SetOpenChat remembers the chat the window shows, for the next start of the app.
func (d *Desktop) SetOpenChat(chatID string) error { return d.db.SetOpenChat(chatID) }

// OpenChatID is the chat the window showed last ("" when none, or when it is gone).
func (d *Desktop) OpenChatID() (string, error) { return d.db.OpenChatID() }

// RenameChat gives a chat a new title.
func (d *Desktop) RenameChat(id, title string) error {
	title = strings.TrimSpace(title)
	if title == "" {
		return errors.New("a chat needs a title: type one, or press Esc to keep the old one")
	}
	_, err := d.db.RenameChat(id, title)
	return err
}

// deleteWait bounds how long DeleteChat waits for the chat's run to end once stopped (a run
// ends within a second of its stop).
const deleteWait = 10 * time.Second

// DeleteChat stops the chat's run, if any, and deletes the chat with its messages, through the
// agent, which forgets the chat ([agentloop.Agent.DeleteChat]).
func (d *Desktop) DeleteChat(id string) error {
	ctx, cancel := context.WithTimeout(d.life, deleteWait)
	defer cancel()
	return d.agent.DeleteChat(ctx, id)
}

// SendResult names the chat a message went to (a new one when the window sent none).
type SendResult struct {
	ChatID string `json:"chatId"`
}

// Send submits a message. With no chat, one is created in the folder and with the model new
// chats take. A message to a chat runs in the chat's own folder with its own model (see
// [Desktop.SetChatWorkspace]), which become those new chats take. A message sent while the
// chat is busy steers the running agent. What the user works with is what the next start
// presets.
func (d *Desktop) Send(ctx context.Context, chatID, prompt string) (SendResult, error) {
	return d.SendImages(ctx, chatID, prompt, nil)
}

// SendImages is Send of a message with images, each base64 as the window reads a pasted or
// dropped file; the agent refuses them for a model that cannot see.
func (d *Desktop) SendImages(ctx context.Context, chatID, prompt string, images []string) (SendResult, error) {
	raw, err := decodeImages(images)
	if err != nil {
		return SendResult{}, err
	}
	if strings.TrimSpace(prompt) == "" {
		return SendResult{}, errors.New("the message is empty: type what you want built")
	}
	var id string
	if chatID == "" {
		workspace, model := d.session()
		if model == "" {
			return SendResult{}, errors.New("no model is selected: pick one in the header (or pull one)")
		}
		if workspace == "" {
			return SendResult{}, errors.New("no workspace folder is open: pick one in the header")
		}
		// The agent checks the message before it creates the chat: a refused one leaves none.
		id, err = d.agent.SendImages(ctx, "", store.Chat{Workspace: workspace, Model: model}, prompt, raw)
	} else {
		var c store.Chat
		if c, err = d.db.Chat(chatID); err == nil {
			if id, err = d.agent.SendImages(ctx, chatID, store.Chat{}, prompt, raw); err == nil {
				d.useLast(c.Workspace, c.Model)
			}
		}
	}
	if err != nil {
		return SendResult{ChatID: id}, err
	}
	return SendResult{ChatID: id}, d.remember()
}

// ImagePatterns are the file patterns of the images a message can carry.
const ImagePatterns = "*.png;*.jpg;*.jpeg;*.gif;*.webp"

// maxImageFile bounds what ReadImages reads of one file (the agent refuses larger images).
const maxImageFile = 20 << 20

// ReadImages reads image files picked to go with a message, base64 as the composer holds
// them. A file that cannot be read, or is too large, is one sentence naming it.
func (d *Desktop) ReadImages(paths []string) ([]string, error) {
	out := make([]string, 0, len(paths))
	for _, p := range paths {
		st, err := os.Stat(p)
		if err != nil || !st.Mode().IsRegular() {
			return nil, fmt.Errorf("%s cannot be read as an image: pick a PNG, JPEG, GIF or WebP file", filepath.Base(p))
		}
		if st.Size() > maxImageFile {
			return nil, fmt.Errorf("%s is %d MB; images of at most %d MB can be sent: shrink it first",
				filepath.Base(p), st.Size()>>20, maxImageFile>>20)
		}
		b, err := os.ReadFile(p)
		if err != nil {
			return nil, fmt.Errorf("%s cannot be read: %v", filepath.Base(p), errors.Unwrap(err))
		}
		out = append(out, base64.StdEncoding.EncodeToString(b))
	}
	return out, nil
}

// WorkspaceFiles offers the files of the session's workspace whose path contains query, for
// the composer's @ completion (at most 20, shortest first).
func (d *Desktop) WorkspaceFiles(query string) ([]string, error) {
	workspace, _ := d.session()
	if workspace == "" {
		return nil, nil
	}
	return tools.FindFiles(workspace, query, 20)
}

// remember saves the workspace and the model in effect as the next start's presets. Under
// d.mu, so that a model or folder chosen meanwhile is never overwritten by an older one.
func (d *Desktop) remember() error {
	d.mu.Lock()
	defer d.mu.Unlock()
	_, err := d.db.UpdateSettings(func(s *store.Settings) error {
		s.DefaultModel = d.model
		if d.workspace != "" {
			s.Workspace = d.workspace
			s.RememberFolder(d.workspace)
		}
		return nil
	})
	return err
}

// OllamaStatus says whether the server answers, for the "Ollama is not running" panel.
type OllamaStatus struct {
	Running bool   `json:"running"`
	URL     string `json:"url"`
	Version string `json:"version"`
	Error   string `json:"error"`
	ServerStart
}

// OllamaStatus asks the server for its version, once (waiting at most 5 s), after starting one
// when nothing answers at a local address and the settings allow it ([Desktop.ensureOllama]): a
// server that is not there says so at once, rather than after the retries a run would make.
func (d *Desktop) OllamaStatus(ctx context.Context) OllamaStatus {
	if d.server.OpenAI() != nil {
		return openAIStatus(ctx, d.server)
	}
	client, url := d.server.Client()
	start := d.ensureOllama(ctx, url)
	v, err := askVersion(ctx, client)
	if err != nil {
		return OllamaStatus{URL: url, Error: err.Error(), ServerStart: start}
	}
	d.mayLoad.wake()
	return OllamaStatus{Running: true, URL: url, Version: v, ServerStart: start}
}

// Models lists the server's models with their capabilities and context length (waiting at
// most 30 s); a model the server cannot describe is listed without them. A list that holds
// the session's model wakes its preload: the model may have just come.
func (d *Desktop) Models(ctx context.Context) ([]ollama.CatalogEntry, error) {
	if d.server.OpenAI() != nil {
		return cli.OpenAIModels(ctx, d.server)
	}
	client, _ := d.server.Client()
	ctx, cancel := context.WithTimeout(ctx, 30*time.Second)
	defer cancel()
	models, err := client.Catalog(ctx)
	_, current := d.session()
	if slices.ContainsFunc(models, func(m ollama.CatalogEntry) bool { return ollama.SameModel(m.Name, current) }) {
		d.mayLoad.wake()
	}
	return models, err
}

// PullModel downloads a model and returns when the pull ends. Its progress goes to the
// window through the bridge, like every other event: pull.progress events (throttled by
// [ollama.ThrottlePull]; status "success" ends a pull), and an error event carrying the
// model when a pull that started fails.
func (d *Desktop) PullModel(ctx context.Context, name string) error {
	client, _ := d.server.Client()
	name = strings.TrimSpace(name)
	err := d.pulls.Pull(ctx, client, name, func(p ollama.PullProgress) error {
		d.bridge.Emit(events.Event{Type: events.PullProgress, Model: name, Status: p.Status,
			Digest: p.Digest, Total: p.Total, Completed: p.Completed})
		return nil
	})
	if err == nil {
		d.mayLoad.wake() // the model the session waits for may be this one
	}
	var running *ollama.PullRunningError
	if err != nil && name != "" && !errors.As(err, &running) {
		retryable := ollama.Retryable(err)
		d.bridge.Emit(events.Event{Type: events.Error, Model: name, Code: ollama.Code(err),
			Message: err.Error(), Retryable: &retryable})
	}
	return err
}
