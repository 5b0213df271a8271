package preview

import (
	"context"
	"fmt"
	"strings"
	"sync"
	"time"

	"prototyper/tools"
)

// Room holds the app's preview server, started by the first [Room.Server] (when the window
// opens its pane) and stopped by [Room.Close] (with the app). Its tool reads the server's
// reports, and says so when there is no server yet. Its methods are safe for concurrent use.
type Room struct {
	opts Options

	mu     sync.Mutex
	srv    *Server
	closed bool
}

// NewRoom returns a room whose server will start with opts. It starts nothing.
func NewRoom(opts Options) *Room { return &Room{opts: opts} }

// Server returns the room's server, starting it on first use.
func (r *Room) Server() (*Server, error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.closed {
		return nil, ErrClosed
	}
	if r.srv == nil {
		srv, err := Start(r.opts)
		if err != nil {
			return nil, err
		}
		r.srv = srv
	}
	return r.srv, nil
}

// running returns the server when it was started, else nil.
func (r *Room) running() *Server {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.srv
}

// Close stops the server, if it started; the room starts none afterwards.
func (r *Room) Close() error {
	r.mu.Lock()
	srv := r.srv
	r.srv, r.closed = nil, true
	r.mu.Unlock()
	if srv == nil {
		return nil
	}
	return srv.Close()
}

// ToolsFor returns the preview's tools for a workspace: preview_errors. The room is an
// agentloop.ExtraTools.
func (r *Room) ToolsFor(_ context.Context, workspace string) ([]tools.Tool, []string) {
	return []tools.Tool{r.errorsTool(workspace)}, nil
}

// ErrorsToolName is the name of the tool that reads the preview's report.
const ErrorsToolName = "preview_errors"

// paintWait is how long preview_errors waits for the pane to load the files as they are and
// paint them: a change just made is reloaded within a fraction of that.
const paintWait = 3 * time.Second

func (r *Room) errorsTool(workspace string) tools.Tool {
	return tools.New(ErrorsToolName, "Read what the web page shown in the user's Preview pane reported since it was "+
		"last loaded (it reloads after every change to the workspace's files): uncaught errors, unhandled promise "+
		"rejections, scripts, styles or images that failed to load (404s), and console output. Call it after "+
		"changing a web page to check that it works.").
		Handle(func(ctx context.Context, call tools.Call, _ tools.ProgressFunc) (tools.Result, error) {
			srv := r.running()
			if srv == nil {
				return tools.Result{Content: "The Preview pane is not open, so no page has reported anything. Ask the user to open the preview (Alt+P) if you need to know how the page behaves."}, nil
			}
			if _, ok := srv.Report(workspace); !ok {
				return tools.Result{Content: "The Preview pane has not shown a page of this workspace yet, so nothing was reported."}, nil
			}
			current, painted := srv.WaitCurrent(workspace, paintWait)
			rep, _ := srv.Report(workspace)
			text := rep.Describe(painted)
			if !current {
				text += "\n(The files changed since the page was loaded, and the preview has not loaded them yet: this is about the page as it was.)"
			}
			return tools.Result{Content: text}, nil
		})
}

// Describe is the report as the model reads it; painted says whether the page finished loading.
func (rep Report) Describe(painted bool) string {
	var b strings.Builder
	page := rep.Page
	if page == "" {
		page = "the page"
	}
	switch {
	case len(rep.Errors) == 0:
		fmt.Fprintf(&b, "The preview of %s reported no errors", page)
	case len(rep.Errors) == 1:
		fmt.Fprintf(&b, "The preview of %s reported 1 error", page)
	default:
		fmt.Fprintf(&b, "The preview of %s reported %d errors", page, len(rep.Errors))
	}
	if !painted {
		b.WriteString(" (it has not finished loading yet)")
	}
	b.WriteString(".\n")
	for i, e := range rep.Errors {
		fmt.Fprintf(&b, "%d. %s\n", i+1, e.Line1())
	}
	if len(rep.Console) > 0 {
		fmt.Fprintf(&b, "Console output (%d):\n", len(rep.Console))
		for _, e := range rep.Console {
			fmt.Fprintf(&b, "%s: %s\n", e.Level, e.Message)
		}
	}
	if rep.Dropped > 0 {
		fmt.Fprintf(&b, "(%d more reports were not kept.)\n", rep.Dropped)
	}
	return strings.TrimRight(b.String(), "\n")
}

// Line1 is the entry on one line: what happened, and where.
func (e Entry) Line1() string {
	where := e.Source
	if where != "" && e.Line > 0 {
		where = fmt.Sprintf("%s:%d:%d", where, e.Line, e.Column)
	}
	msg := strings.Join(strings.Fields(e.Message), " ")
	if where == "" || e.Kind == KindLoad {
		return msg
	}
	return msg + " (" + where + ")"
}
