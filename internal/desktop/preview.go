package desktop

import (
	"context"
	"os"
	"path"
	"slices"
	"strings"

	"prototyper/agentloop"
	"prototyper/events"
	"prototyper/internal/cli"
	"prototyper/preview"
	"prototyper/tools"
)

// PreviewPage is what the Preview pane shows for a chat: the site of its folder, the page
// to open there, and the pages it could open instead.
type PreviewPage struct {
	// URL is the base URL of the folder's site (ending in "/"); the pane opens URL+Page.
	URL string `json:"url"`
	// Origin is the origin of the folder's site (a port of its own): the pane's frame has
	// it, the window and the other folders' pages others.
	Origin    string `json:"origin"`
	Workspace string `json:"workspace"`
	// Page is the page to show: the one asked for when it exists, else index.html, else
	// the first HTML file; "" when the folder has none.
	Page string `json:"page"`
	// Pages are the folder's HTML files (at most maxPreviewPages), for the pane's picker.
	Pages []string `json:"pages"`
	// Report is what the folder's page reported since it was last loaded.
	Report preview.Report `json:"report"`
}

// maxPreviewPages bounds the picker's list.
const maxPreviewPages = 200

// newPreviewRoom is the preview of the window's session: its reports go to the window as
// preview.report events, of no chat.
// With PROTOTYPER_PREVIEW_LOG set, the pages served and painted are logged to that file.
func newPreviewRoom(files tools.WorkspaceOptions, bridge *events.Bridge) *preview.Room {
	opts := preview.Options{Files: files, Notify: func(rep preview.Report) {
		bridge.Emit(events.Event{Type: events.PreviewReport, Report: rep})
	}}
	if name := os.Getenv(preview.LogEnv); name != "" {
		if f, err := os.OpenFile(name, os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o600); err == nil {
			opts.Log = f // closed with the process
		}
	}
	return preview.NewRoom(opts)
}

// PreviewOpen starts the preview server if it is not running and returns the page to show
// for the chat (its folder; for "" the folder of new chats): want when it is an HTML file of
// the folder, else index.html, else the first HTML file. guard is called first: it keeps the
// page out of the window's reach (the window's bindings guard), and its error refuses.
func (d *Desktop) PreviewOpen(guard func() error, chatID, want string) (PreviewPage, error) {
	if err := guard(); err != nil {
		return PreviewPage{}, err
	}
	workspace := d.Workspace()
	if chatID != "" {
		chat, err := d.db.Chat(chatID)
		if err != nil {
			return PreviewPage{}, err
		}
		workspace = cli.FirstNonBlank(chat.Workspace, workspace)
	}
	if workspace == "" {
		return PreviewPage{}, errNoFolderToPreview
	}
	srv, err := d.preview.Server()
	if err != nil {
		return PreviewPage{}, err
	}
	base, err := srv.Site(workspace)
	if err != nil {
		return PreviewPage{}, err
	}
	pages, err := htmlPages(workspace)
	if err != nil {
		return PreviewPage{}, err
	}
	page := ""
	for _, p := range []string{strings.TrimPrefix(want, "/"), "index.html"} {
		if p != "" && slices.Contains(pages, p) {
			page = p
			break
		}
	}
	if page == "" && len(pages) > 0 {
		page = pages[0]
	}
	rep, _ := srv.Report(workspace)
	return PreviewPage{URL: base, Origin: srv.Origin(workspace), Workspace: workspace, Page: page, Pages: pages, Report: rep}, nil
}

// errNoFolderToPreview: the window has no folder yet.
var errNoFolderToPreview = errorString("There is no folder to preview yet: open a folder first (Ctrl+O).")

type errorString string

func (e errorString) Error() string { return string(e) }

// htmlPages lists the HTML files of workspace the preview could serve, top-level ones first.
func htmlPages(workspace string) ([]string, error) {
	found, err := tools.FindFiles(workspace, ".htm", maxPreviewPages)
	if err != nil {
		if _, serr := os.Stat(workspace); serr != nil {
			return nil, err
		}
		return nil, nil
	}
	var pages []string
	for _, f := range found {
		if ext := strings.ToLower(path.Ext(f)); ext == ".html" || ext == ".htm" {
			pages = append(pages, f)
		}
	}
	slices.SortStableFunc(pages, func(a, b string) int {
		return strings.Count(a, "/") - strings.Count(b, "/")
	})
	return pages, nil
}

// extraTools are several [agentloop.ExtraTools] offered together (the MCP servers' and the
// preview's).
type extraTools []agentloop.ExtraTools

func (e extraTools) ToolsFor(ctx context.Context, workspace string) ([]tools.Tool, []string) {
	var all []tools.Tool
	var notices []string
	for _, x := range e {
		ts, ns := x.ToolsFor(ctx, workspace)
		all, notices = append(all, ts...), append(notices, ns...)
	}
	return all, notices
}

// previewTools offers the preview's tool to the agent, which is wired before the room that
// reads the agent's file options exists.
type previewTools struct{ room *preview.Room }

func (p *previewTools) ToolsFor(ctx context.Context, workspace string) ([]tools.Tool, []string) {
	return p.room.ToolsFor(ctx, workspace)
}
