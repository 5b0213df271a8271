package main

import (
	"context"
	"errors"
	"sync"

	"github.com/wailsapp/wails/v2/pkg/runtime"

	"prototyper/internal/cli"
	"prototyper/internal/desktop"
	"prototyper/store"
)

// App is the facade bound to the frontend: each exported method is one call into the window's
// session ([desktop.Desktop]), but the folder checks and dialog (desktop's functions, Wails'
// dialog) and the preview's screenshot (GTK); its life with the window is in app_lifecycle.go. Besides main.go
// and the window's sink (events/wailssink), App is the only code that calls Wails.
type App struct {
	opts cli.DesktopOptions

	mu      sync.Mutex
	ctx     context.Context
	desk    *desktop.Desktop
	exitErr error // set when startup fails; main reports it after the window closes
}

// NewApp returns the facade for the desktop options. It opens nothing: startup does.
func NewApp(opts cli.DesktopOptions) *App { return &App{opts: opts} }

// with calls fn with the session, or returns why there is none: the body of a bound method.
func with[T any](a *App, fn func(*session) (T, error)) (T, error) {
	desk, err := a.desktop()
	if err != nil {
		var none T
		return none, err
	}
	return fn(desk)
}

// do is [with] for a bound method that answers only with an error.
func (a *App) do(fn func(*session) error) error {
	_, err := with(a, func(desk *session) (struct{}, error) { return struct{}{}, fn(desk) })
	return err
}

// desktop returns the session startup opened, or why there is none.
func (a *App) desktop() (*session, error) {
	a.mu.Lock()
	defer a.mu.Unlock()
	if a.desk == nil && a.exitErr == nil {
		return nil, errors.New("Prototyper is still starting; try again in a moment")
	}
	return a.desk, a.exitErr // startup sets one of them
}

// session is the window's session, as the bound methods name it.
type session = desktop.Desktop

// call1, do1 and do2 are [with] and [App.do] for a session method of one or two arguments.
func call1[A, T any](a *App, m func(*session, A) (T, error), x A) (T, error) {
	return with(a, func(d *session) (T, error) { return m(d, x) })
}
func do1[A any](a *App, m func(*session, A) error, x A) error {
	return a.do(func(d *session) error { return m(d, x) })
}
func do2[A, B any](a *App, m func(*session, A, B) error, x A, y B) error {
	return a.do(func(d *session) error { return m(d, x, y) })
}

// folderDialog asks for a folder with the native dialog, starting at from ("" when cancelled).
func (a *App) folderDialog(from string) (string, error) {
	return runtime.OpenDirectoryDialog(a.ctx, runtime.OpenDialogOptions{
		Title: "Open a workspace folder", DefaultDirectory: from, CanCreateDirectories: true})
}

// imagesDialog asks for image files with the native dialog, starting at from.
func (a *App) imagesDialog(from string) ([]string, error) {
	return runtime.OpenMultipleFilesDialog(a.ctx, runtime.OpenDialogOptions{Title: "Attach images", DefaultDirectory: from,
		Filters: []runtime.FileFilter{{DisplayName: "Images", Pattern: desktop.ImagePatterns}}})
}

// The bound methods, each documented on the [desktop.Desktop] method it calls.

func (a *App) Config() (desktop.Config, error)      { return with(a, (*session).Config) }
func (a *App) SaveSettings(in store.Settings) error { return do1(a, (*session).SaveSettings, in) }
func (a *App) SetModel(name string) error           { return do1(a, (*session).SetModel, name) }
func (a *App) SetSidebar(choice string) error       { return do1(a, (*session).SetSidebar, choice) }
func (a *App) PickWorkspace() (string, error) {
	return call1(a, (*session).PickWorkspace, a.folderDialog)
}
func (a *App) PickImages() ([]string, error) { return call1(a, (*session).PickImages, a.imagesDialog) }
func (a *App) ChooseFolder(from string) (string, error) { // asks, and uses it for nothing
	return with(a, func(*session) (string, error) { return a.folderDialog(from) })
}
func (a *App) ListChats() ([]desktop.ChatSummary, error) { return with(a, (*session).ListChats) }
func (a *App) NewChat() (desktop.ChatSummary, error)     { return with(a, (*session).NewChat) }
func (a *App) RenameChat(id, title string) error         { return do2(a, (*session).RenameChat, id, title) }
func (a *App) SaveDraft(chatID, text string) error       { return do2(a, (*session).SaveDraft, chatID, text) }
func (a *App) Drafts() (map[string]string, error)        { return with(a, (*session).Drafts) }
func (a *App) SaveDraftImages(chatID string, images []string) error {
	return do2(a, (*session).SaveDraftImages, chatID, images)
}
func (a *App) DraftImages() (map[string][]string, error) { return with(a, (*session).DraftImages) }
func (a *App) SetOpenChat(chatID string) error           { return do1(a, (*session).SetOpenChat, chatID) }
func (a *App) LastOpenChat() (string, error)             { return with(a, (*session).OpenChatID) }
func (a *App) DeleteChat(id string) error                { return do1(a, (*session).DeleteChat, id) }
func (a *App) OpenChat(id string) (desktop.OpenedChat, error) {
	return call1(a, (*session).OpenChat, id)
}
func (a *App) UseFolder(dir string) (string, error)     { return call1(a, (*session).UseFolder, dir) }
func (a *App) DevServers() ([]desktop.DevServer, error) { return with(a, (*session).DevServers) }
func (a *App) StopDevServer(id string) error            { return do1(a, (*session).StopDevServer, id) }
func (a *App) DevServerURL(id string) (string, error) {
	return with(a, func(d *session) (string, error) { return d.DevServerURL(guardBindings, id) })
}
func (a *App) CheckFolder(dir string) desktop.FolderCheck { return desktop.CheckFolder(dir) }
func (a *App) CreateFolder(dir string) (string, error)    { return desktop.CreateFolder(dir) }
func (a *App) PreviewOpen(chatID, page string) (desktop.PreviewPage, error) { // the page kept from the bindings first
	return with(a, func(d *session) (desktop.PreviewPage, error) { return d.PreviewOpen(guardBindings, chatID, page) })
}

// PreviewScreenshot is GTK work, not the session's: the web view's snapshot (previewshot_linux.go).
func (a *App) PreviewScreenshot(x, y, width, height, viewWidth float64) (string, error) {
	return previewScreenshot(x, y, width, height, viewWidth)
}
func (a *App) SetChatWorkspace(chatID, dir string) (desktop.ChatSummary, error) {
	return with(a, func(d *session) (desktop.ChatSummary, error) { return d.SetChatWorkspace(chatID, dir) })
}
func (a *App) SetChatModel(chatID, name string) (desktop.ChatSummary, error) {
	return with(a, func(d *session) (desktop.ChatSummary, error) { return d.SetChatModel(chatID, name) })
}
func (a *App) EditAndResend(chatID, messageID, text string) (desktop.SendResult, error) {
	return with(a, func(d *session) (desktop.SendResult, error) { return d.EditAndResend(a.ctx, chatID, messageID, text) })
}
func (a *App) ShowVersion(chatID, shownID string, index int) (desktop.OpenedChat, error) {
	return with(a, func(d *session) (desktop.OpenedChat, error) { return d.ShowVersion(chatID, shownID, index) })
}
func (a *App) EditQueued(chatID string, index int, text string) error {
	return a.do(func(d *session) error { return d.EditQueued(a.ctx, chatID, index, text) })
}
func (a *App) SearchChats(query string) ([]desktop.ChatHit, error) {
	return call1(a, (*session).SearchChats, query)
}
func (a *App) Send(chatID, prompt string) (desktop.SendResult, error) {
	return with(a, func(d *session) (desktop.SendResult, error) { return d.Send(a.ctx, chatID, prompt) })
}
func (a *App) SendImages(chatID, prompt string, images []string) (desktop.SendResult, error) {
	return with(a, func(d *session) (desktop.SendResult, error) { return d.SendImages(a.ctx, chatID, prompt, images) })
}
func (a *App) WorkspaceFiles(query string) ([]string, error) {
	return call1(a, (*session).WorkspaceFiles, query)
}
func (a *App) PromptBudget(chatID, model string) (desktop.Budget, error) {
	return with(a, func(d *session) (desktop.Budget, error) { return d.PromptBudget(a.ctx, chatID, model) })
}
func (a *App) Stop(chatID string) error { return do1(a, (*session).StopChat, chatID) }
func (a *App) Decide(toolCallID, decision, reason string) error {
	return a.do(func(d *session) error { return d.Decide(toolCallID, decision, reason) })
}
func (a *App) AnswerSummaryOffer(chatID, choice string) error {
	return do2(a, (*session).AnswerSummaryOffer, chatID, choice)
}
func (a *App) AllowAlways(toolCallID string) error { return do1(a, (*session).AllowAlways, toolCallID) }
func (a *App) AllowCommand(toolCallID string, network bool, pattern string) error {
	return a.do(func(d *session) error { return d.AllowCommand(toolCallID, network, pattern) })
}
func (a *App) Undo(chatID string, opts desktop.UndoOptions) (desktop.UndoResult, error) {
	return with(a, func(d *session) (desktop.UndoResult, error) { return d.Undo(a.ctx, chatID, opts) })
}
func (a *App) Redo(chatID string, opts desktop.UndoOptions) (desktop.UndoResult, error) {
	return with(a, func(d *session) (desktop.UndoResult, error) { return d.Redo(a.ctx, chatID, opts) })
}
func (a *App) ChatChanges(chatID string) ([]desktop.FileChange, error) {
	return with(a, func(d *session) ([]desktop.FileChange, error) { return d.ChatChanges(a.ctx, chatID) })
}
func (a *App) OpenPath(chatID, path string, inFolder bool) error {
	return a.do(func(d *session) error { return d.OpenPath(chatID, path, inFolder) })
}
func (a *App) OpenCallPath(chatID, toolCallID, path string, inFolder bool) error {
	return a.do(func(d *session) error { return d.OpenCallPath(chatID, toolCallID, path, inFolder) })
}
func (a *App) OpenChangedPath(chatID, workspace, path string, inFolder bool) error {
	return a.do(func(d *session) error { return d.OpenChangedPath(chatID, workspace, path, inFolder) })
}
func (a *App) WorkspaceServersToAsk(dir string, again bool) (*desktop.WorkspaceServers, error) {
	return with(a, func(d *session) (*desktop.WorkspaceServers, error) { return d.WorkspaceServersToAsk(dir, again) })
}
func (a *App) AllowWorkspaceServers(dir, hash string) error {
	return do2(a, (*session).AllowWorkspaceServers, dir, hash)
}
func (a *App) RefuseWorkspaceServers(dir, hash string) error {
	return do2(a, (*session).RefuseWorkspaceServers, dir, hash)
}
func (a *App) Models() ([]desktop.CatalogEntry, error) { return call1(a, (*session).Models, a.ctx) }
func (a *App) StarterModels() []desktop.StarterModel { // before startup ends too
	desk, _ := a.desktop()
	return desk.StarterModels()
}
func (a *App) PullModel(name string) error { return do2(a, (*session).PullModel, a.ctx, name) }
func (a *App) CheckModel(name string) (desktop.ModelCheck, error) {
	return with(a, func(d *session) (desktop.ModelCheck, error) { return d.CheckModel(a.ctx, name) })
}
func (a *App) StopModelCheck(name string) error           { return do1(a, (*session).StopModelCheck, name) }
func (a *App) ModelChecks() ([]desktop.ModelCheck, error) { return with(a, (*session).ModelChecks) }
func (a *App) Painted(seq uint64, running []string, receivedMs, paintedMs float64) {
	a.do(func(d *session) error { d.Painted(seq, running, receivedMs, paintedMs); return nil })
}
func (a *App) KeyReceived(key string, atUnixMs float64) {
	a.do(func(d *session) error { d.KeyReceived(key, atUnixMs); return nil })
}
func (a *App) SetVisible(visible bool) {
	a.do(func(d *session) error { d.SetVisible(visible); return nil })
}

// OllamaStatus answers even before startup ends: the panel shows why there is no session.
func (a *App) OllamaStatus() desktop.OllamaStatus {
	if desk, err := a.desktop(); err != nil {
		return desktop.OllamaStatus{Error: err.Error()}
	} else {
		return desk.OllamaStatus(a.ctx)
	}
}
