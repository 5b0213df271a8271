package main

import (
	"context"
	"errors"
	"fmt"
	"os"
	"sync"
	"time"

	"github.com/wailsapp/wails/v2/pkg/runtime"

	"prototyper/agentloop"
	"prototyper/events/wailssink"
	"prototyper/internal/cli"
	"prototyper/model/ollama"
	"prototyper/store"
	"prototyper/tools/mcptools"
)

// App is the facade bound to the frontend: every exported method is callable from the
// window and is a few lines into the package that owns the behaviour, most often the
// [cli.Desktop] startup opens. Besides main.go, App is the only code that calls Wails: the
// window's sink, its dialogs, raising it, quitting it.
type App struct {
	opts cli.DesktopOptions

	mu      sync.Mutex
	ctx     context.Context
	desk    *cli.Desktop
	exitErr error // set when startup fails; main reports it after the window closes
}

// NewApp returns the facade for the desktop options. It opens nothing: startup does.
func NewApp(opts cli.DesktopOptions) *App { return &App{opts: opts} }

// startup opens the store and assembles the agent, its events going to the window. A second
// instance on the same database gets the store's "Prototyper is already running" error and
// quits.
func (a *App) startup(ctx context.Context) {
	desk, err := cli.OpenDesktop(a.opts, wailssink.New(ctx))
	// Wails runs startup beside the page's first calls: the fields are published under a.mu.
	a.mu.Lock()
	a.ctx, a.desk, a.exitErr = ctx, desk, err
	a.mu.Unlock()
	if err != nil {
		runtime.Quit(ctx)
	}
}

// beforeClose stops the runs before the window goes: each keeps its partial answer and tool
// records and ends aborted, within a second.
func (a *App) beforeClose(ctx context.Context) (prevent bool) {
	if desk, err := a.desktop(); err == nil {
		stopCtx, cancel := context.WithTimeout(context.Background(), time.Second)
		defer cancel()
		report(desk.Stop(stopCtx))
	}
	return false
}

func (a *App) shutdown(ctx context.Context) {
	if desk, err := a.desktop(); err == nil {
		report(desk.Close())
	}
}

// report prints a failure of closing on stderr: the window is gone.
func report(err error) {
	if err != nil {
		fmt.Fprintln(os.Stderr, "prototyper:", err)
	}
}

// withDesktop calls fn with what startup opened, or returns why there is nothing: the body of
// a bound method that answers with a value.
func withDesktop[T any](a *App, fn func(*cli.Desktop) (T, error)) (T, error) {
	desk, err := a.desktop()
	if err != nil {
		var none T
		return none, err
	}
	return fn(desk)
}

// onDesktop is [withDesktop] for a bound method that answers only with an error.
func (a *App) onDesktop(fn func(*cli.Desktop) error) error {
	_, err := withDesktop(a, func(desk *cli.Desktop) (struct{}, error) { return struct{}{}, fn(desk) })
	return err
}

// desktop returns what startup opened, or why there is nothing.
func (a *App) desktop() (*cli.Desktop, error) {
	a.mu.Lock()
	defer a.mu.Unlock()
	switch {
	case a.desk != nil:
		return a.desk, nil
	case a.exitErr != nil:
		return nil, a.exitErr
	}
	return nil, errors.New("Prototyper is still starting; try again in a moment")
}

// Config returns the settings in effect, with the flags applied and every tool's policy.
func (a *App) Config() (cli.Config, error) {
	return withDesktop(a, (*cli.Desktop).Config)
}

// SaveSettings stores the settings; a new Ollama URL applies to the runs that start next.
func (a *App) SaveSettings(in cli.Settings) error {
	return a.onDesktop(func(desk *cli.Desktop) error { return desk.SaveSettings(in) })
}

// SetModel makes name the model of the next message, and the default of new chats.
func (a *App) SetModel(name string) error {
	return a.onDesktop(func(desk *cli.Desktop) error { return desk.SetModel(name) })
}

// PickWorkspace asks for a folder with the native dialog and makes it the workspace of new
// chats; it returns "" when the user cancels.
func (a *App) PickWorkspace() (string, error) {
	desk, err := a.desktop()
	if err != nil {
		return "", err
	}
	dir, err := runtime.OpenDirectoryDialog(a.ctx, runtime.OpenDialogOptions{
		Title: "Open a workspace folder", DefaultDirectory: desk.Workspace(), CanCreateDirectories: true})
	if err != nil || dir == "" {
		return "", err
	}
	return dir, desk.SetWorkspace(dir)
}

// PickImages asks for image files to send with the next message and returns them base64,
// as the composer holds pasted ones ("Cancel": none).
func (a *App) PickImages() ([]string, error) {
	desk, err := a.desktop()
	if err != nil {
		return nil, err
	}
	paths, err := runtime.OpenMultipleFilesDialog(a.ctx, runtime.OpenDialogOptions{Title: "Attach images",
		DefaultDirectory: desk.Workspace(), Filters: []runtime.FileFilter{{DisplayName: "Images", Pattern: cli.ImagePatterns}}})
	if err != nil || len(paths) == 0 {
		return nil, err
	}
	return desk.ReadImages(paths)
}

// ListChats returns the chats, newest first.
func (a *App) ListChats() ([]agentloop.ChatSummary, error) {
	return withDesktop(a, func(desk *cli.Desktop) ([]agentloop.ChatSummary, error) { return desk.Agent().Summaries() })
}

// NewChat creates an empty chat in the current workspace with the current model.
func (a *App) NewChat() (agentloop.ChatSummary, error) {
	return withDesktop(a, (*cli.Desktop).NewChat)
}

// RenameChat gives a chat a new title.
func (a *App) RenameChat(id, title string) error {
	return a.onDesktop(func(desk *cli.Desktop) error { return desk.RenameChat(id, title) })
}

// SaveDraft keeps the text typed in a chat's box and not sent ("" for a chat not started).
func (a *App) SaveDraft(chatID, text string) error {
	return a.onDesktop(func(desk *cli.Desktop) error { return desk.SaveDraft(chatID, text) })
}

// Drafts returns the unsent text of each chat, by chat id.
func (a *App) Drafts() (map[string]string, error) { return withDesktop(a, (*cli.Desktop).Drafts) }

// SetOpenChat remembers the chat the window shows, for the next start of the app.
func (a *App) SetOpenChat(chatID string) error {
	return a.onDesktop(func(desk *cli.Desktop) error { return desk.SetOpenChat(chatID) })
}

// LastOpenChat is the chat the window showed last ("" when none, or when it is gone).
func (a *App) LastOpenChat() (string, error) { return withDesktop(a, (*cli.Desktop).OpenChatID) }

// DeleteChat stops the chat's run, if any, and deletes the chat with its messages.
func (a *App) DeleteChat(id string) error {
	return a.onDesktop(func(desk *cli.Desktop) error { return desk.DeleteChat(id) })
}

// OpenChat reads one chat from the store, as the window shows it, with the versions of its
// edited history.
func (a *App) OpenChat(id string) (agentloop.OpenedChat, error) {
	return withDesktop(a, func(desk *cli.Desktop) (agentloop.OpenedChat, error) { return desk.OpenChat(id) })
}

// ChooseFolder asks for a folder with the native dialog, starting at from, and returns it
// ("" when the user cancels) without using it: the window asks what it is for.
func (a *App) ChooseFolder(from string) (string, error) {
	if _, err := a.desktop(); err != nil {
		return "", err
	}
	return runtime.OpenDirectoryDialog(a.ctx, runtime.OpenDialogOptions{
		Title: "Open a workspace folder", DefaultDirectory: from, CanCreateDirectories: true})
}

// UseFolder makes dir the folder of new chats and returns its absolute path.
func (a *App) UseFolder(dir string) (string, error) {
	return withDesktop(a, func(desk *cli.Desktop) (string, error) { return desk.UseFolder(dir) })
}

// SetChatWorkspace moves a chat to the folder dir from its next message on.
func (a *App) SetChatWorkspace(chatID, dir string) (agentloop.ChatSummary, error) {
	return withDesktop(a, func(desk *cli.Desktop) (agentloop.ChatSummary, error) { return desk.SetChatWorkspace(chatID, dir) })
}

// SetChatModel makes name the model of a chat's next messages.
func (a *App) SetChatModel(chatID, name string) (agentloop.ChatSummary, error) {
	return withDesktop(a, func(desk *cli.Desktop) (agentloop.ChatSummary, error) { return desk.SetChatModel(chatID, name) })
}

// EditAndResend replaces a user message with text and sends it; what followed it stays as an
// earlier version of the chat.
func (a *App) EditAndResend(chatID, messageID, text string) (cli.SendResult, error) {
	return withDesktop(a, func(desk *cli.Desktop) (cli.SendResult, error) {
		return desk.EditAndResend(a.ctx, chatID, messageID, text)
	})
}

// ShowVersion shows version index (1-based) of a chat's history at the message shownID, and
// returns the chat as it reads then.
func (a *App) ShowVersion(chatID, shownID string, index int) (agentloop.OpenedChat, error) {
	return withDesktop(a, func(desk *cli.Desktop) (agentloop.OpenedChat, error) { return desk.ShowVersion(chatID, shownID, index) })
}

// EditQueued replaces (or, with an empty text, takes back) a message that waits for the
// chat's run to take it.
func (a *App) EditQueued(chatID string, index int, text string) error {
	return a.onDesktop(func(desk *cli.Desktop) error { return desk.EditQueued(a.ctx, chatID, index, text) })
}

// SearchChats finds the chats whose title or messages hold query, newest first.
func (a *App) SearchChats(query string) ([]store.ChatHit, error) {
	return withDesktop(a, func(desk *cli.Desktop) ([]store.ChatHit, error) { return desk.SearchChats(query) })
}

// Send submits a message. With no chat, one is created in the current workspace. The current
// model becomes the chat's. A message sent while the chat is busy steers the running agent.
func (a *App) Send(chatID, prompt string) (cli.SendResult, error) {
	return withDesktop(a, func(desk *cli.Desktop) (cli.SendResult, error) { return desk.Send(a.ctx, chatID, prompt) })
}

// SendImages sends a message with images (base64, as the composer read them) to a chat, or
// to a new one for "".
func (a *App) SendImages(chatID, prompt string, images []string) (cli.SendResult, error) {
	return withDesktop(a, func(desk *cli.Desktop) (cli.SendResult, error) { return desk.SendImages(a.ctx, chatID, prompt, images) })
}

// WorkspaceFiles offers the workspace's files whose path contains query, for the composer's
// @ completion.
func (a *App) WorkspaceFiles(query string) ([]string, error) {
	return withDesktop(a, func(desk *cli.Desktop) ([]string, error) { return desk.WorkspaceFiles(query) })
}

// PromptBudget is how long a message to the chat (or a new chat, for "") with model may be,
// for the composer's warning while the user types or pastes.
func (a *App) PromptBudget(chatID, model string) (agentloop.Budget, error) {
	return withDesktop(a, func(desk *cli.Desktop) (agentloop.Budget, error) { return desk.PromptBudget(a.ctx, chatID, model) })
}

// Stop stops the chat's run; its partial answer stays.
func (a *App) Stop(chatID string) error {
	return a.onDesktop(func(desk *cli.Desktop) error { return desk.Agent().Stop(chatID) })
}

// Decide answers a tool call that waits for approval: allow or deny, with a reason.
func (a *App) Decide(toolCallID, decision, reason string) error {
	return a.onDesktop(func(desk *cli.Desktop) error { return desk.Agent().Decide(toolCallID, decision, reason) })
}

// AnswerSummaryOffer answers the offer to summarize a chat's older messages that no longer
// fit: summarize or leave_out; the chat then goes on.
func (a *App) AnswerSummaryOffer(chatID, choice string) error {
	return a.onDesktop(func(desk *cli.Desktop) error { return desk.Agent().AnswerSummary(chatID, choice) })
}

// AllowAlways allows a waiting call and every later call of its tool in the chat's
// workspace ("Always allow this tool in this workspace"; revocable in the settings).
func (a *App) AllowAlways(toolCallID string) error {
	return a.onDesktop(func(desk *cli.Desktop) error { return desk.Agent().AllowAlways(toolCallID) })
}

// AllowCommand allows a waiting run_command call, with the host's network when network;
// a pattern not empty also always allows the commands starting with it in the chat's
// workspace (revocable in the settings).
func (a *App) AllowCommand(toolCallID string, network bool, pattern string) error {
	return a.onDesktop(func(desk *cli.Desktop) error { return desk.Agent().AllowCommand(toolCallID, network, pattern) })
}

// Undo puts back files the chat's runs changed: the newest run, opts.RunID, the runs from
// opts.FromMessage on ("Restore to here"), or one path (opts.Path).
func (a *App) Undo(chatID string, opts agentloop.UndoOptions) (agentloop.UndoResult, error) {
	return withDesktop(a, func(desk *cli.Desktop) (agentloop.UndoResult, error) { return desk.Agent().Undo(a.ctx, chatID, opts) })
}

// Redo takes back the chat's last undo.
func (a *App) Redo(chatID string, opts agentloop.UndoOptions) (agentloop.UndoResult, error) {
	return withDesktop(a, func(desk *cli.Desktop) (agentloop.UndoResult, error) { return desk.Agent().Redo(a.ctx, chatID, opts) })
}

// ChatChanges is the review of a chat: every file its runs created, changed or deleted, with
// the combined diff from before the chat to now.
func (a *App) ChatChanges(chatID string) ([]agentloop.FileChange, error) {
	return withDesktop(a, func(desk *cli.Desktop) ([]agentloop.FileChange, error) {
		return desk.Agent().ChatChanges(a.ctx, chatID)
	})
}

// OpenPath opens a file of the chat's workspace with the system's default app; inFolder
// opens the folder that holds it ("Show in folder").
func (a *App) OpenPath(chatID, path string, inFolder bool) error {
	return a.onDesktop(func(desk *cli.Desktop) error { return desk.OpenPath(chatID, path, inFolder) })
}

// OpenCallPath is OpenPath for a tool call's card: the path in the folder that call wrote it
// in.
func (a *App) OpenCallPath(chatID, toolCallID, path string, inFolder bool) error {
	return a.onDesktop(func(desk *cli.Desktop) error { return desk.OpenCallPath(chatID, toolCallID, path, inFolder) })
}

// OpenChangedPath is OpenPath for a file of the chat's review: the path in the folder the
// review names for it.
func (a *App) OpenChangedPath(chatID, workspace, path string, inFolder bool) error {
	return a.onDesktop(func(desk *cli.Desktop) error { return desk.OpenChangedPath(chatID, workspace, path, inFolder) })
}

// WorkspaceServersToAsk is what the folder dir ("" for the folder of new chats) runs of its
// own MCP servers when the user has not answered about it yet (again: or refused it); nil
// when nothing is to ask.
func (a *App) WorkspaceServersToAsk(dir string, again bool) (*mcptools.WorkspaceServers, error) {
	return withDesktop(a, func(desk *cli.Desktop) (*mcptools.WorkspaceServers, error) {
		return desk.WorkspaceServersToAsk(dir, again)
	})
}

// AllowWorkspaceServers allows the MCP server file of the folder dir as shown (its hash).
func (a *App) AllowWorkspaceServers(dir, hash string) error {
	return a.onDesktop(func(desk *cli.Desktop) error { return desk.AllowWorkspaceServers(dir, hash) })
}

// RefuseWorkspaceServers does not allow the MCP server file of the folder dir as shown.
func (a *App) RefuseWorkspaceServers(dir, hash string) error {
	return a.onDesktop(func(desk *cli.Desktop) error { return desk.RefuseWorkspaceServers(dir, hash) })
}

// OllamaStatus says whether the server answers, for the "Ollama is not running" panel.
func (a *App) OllamaStatus() cli.OllamaStatus {
	desk, err := a.desktop()
	if err != nil {
		return cli.OllamaStatus{Error: err.Error()}
	}
	return desk.OllamaStatus(a.ctx)
}

// Models lists the server's models with their capabilities and context length.
func (a *App) Models() ([]ollama.CatalogEntry, error) {
	return withDesktop(a, func(desk *cli.Desktop) ([]ollama.CatalogEntry, error) { return desk.Models(a.ctx) })
}

// StarterModels lists the small models that call tools which the window offers to pull
// when the server has none, the recommended one first.
func (a *App) StarterModels() []ollama.StarterModel { return ollama.StarterModels() }

// PullModel downloads a model and returns when the pull ends; its progress reaches the
// window in the "agent:batch" stream (pull.progress events, an error event if it fails).
func (a *App) PullModel(name string) error {
	return a.onDesktop(func(desk *cli.Desktop) error { return desk.PullModel(a.ctx, name) })
}

// Painted acknowledges the batch ending at seq: the window applied it and painted a frame,
// with the tool cards of runningToolCallIDs in the DOM as running.
func (a *App) Painted(seq uint64, runningToolCallIDs []string) {
	if desk, err := a.desktop(); err == nil {
		desk.Bridge().Painted(seq, runningToolCallIDs)
	}
}

// SetVisible tells the bridge whether the window can paint; hidden, it waits for no ack.
func (a *App) SetVisible(visible bool) {
	if desk, err := a.desktop(); err == nil {
		desk.Bridge().SetVisible(visible)
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

// PreviewOpen starts the preview server if needed and returns the page the Preview pane
// shows for the chat ("" for the folder of new chats): page when the folder has it, else
// its index.html, else its first HTML file.
// Pages are shown only once the window's bindings are out of their reach
// (bindingsguard_linux.go).
func (a *App) PreviewOpen(chatID, page string) (cli.PreviewPage, error) {
	return withDesktop(a, func(d *cli.Desktop) (cli.PreviewPage, error) {
		if err := guardBindings(); err != nil {
			return cli.PreviewPage{}, err
		}
		return d.PreviewOpen(chatID, page)
	})
}

// DevServers lists the development servers the agent started that still run.
func (a *App) DevServers() ([]cli.DevServer, error) {
	return withDesktop(a, func(d *cli.Desktop) ([]cli.DevServer, error) { return d.DevServers(), nil })
}

// DevServerURL is the address at which the Preview pane shows development server id.
func (a *App) DevServerURL(id string) (string, error) {
	return withDesktop(a, func(d *cli.Desktop) (string, error) {
		if err := guardBindings(); err != nil {
			return "", err
		}
		return d.DevServerURL(id)
	})
}

// StopDevServer stops development server id.
func (a *App) StopDevServer(id string) error {
	_, err := withDesktop(a, func(d *cli.Desktop) (struct{}, error) { return struct{}{}, d.StopDevServer(id) })
	return err
}
