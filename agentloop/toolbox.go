package agentloop

import (
	"context"
	"encoding/json"
	"errors"

	"prototyper/tools"
)

// Toolbox is what a run can call. A *tools.Registry is one. The loop validates a call's
// arguments once, before the hooks and the approval policy see the call, and executes the
// call with the arguments it validated.
type Toolbox interface {
	// Definitions are the tools' definitions: sent to the model, and read for each tool's
	// default approval.
	Definitions() []tools.Definition
	// Validate decodes and checks the arguments of a call. The error (tools.ErrUnknownTool,
	// naming the tools that exist, or a *tools.ArgumentsError) is what the model reads.
	Validate(name string, args json.RawMessage) (tools.Args, error)
	// Parallel reports whether calls to the named tools may run at the same time.
	Parallel(names ...string) bool
	// Exec executes a validated call and never fails: a failing tool comes back as a result
	// with IsError set.
	Exec(ctx context.Context, call tools.Call, progress tools.ProgressFunc) tools.Result
}

// ChangeTracker is a Toolbox that knows, before a call runs, which workspace paths it will
// change, and reads their state: the loop keeps that state with the call's pending record, so
// that the change can be undone, and shows the change to a user asked to approve it. The
// workspace toolbox is one; the calls of any other toolbox run without checkpoints.
type ChangeTracker interface {
	Touches(ctx context.Context, call tools.Call) (paths []string, ok bool, err error)
	Preview(ctx context.Context, call tools.Call) (*tools.Preview, error)
	States(ctx context.Context, paths []string, keep int64) ([]tools.PathState, error)
}

// workspaceBox is the toolbox of a workspace folder: its tools, and the folder itself.
type workspaceBox struct {
	*tools.Registry
	ws *tools.Workspace
}

func (b workspaceBox) States(ctx context.Context, paths []string, keep int64) ([]tools.PathState, error) {
	return b.ws.States(ctx, paths, keep)
}

var _ ChangeTracker = workspaceBox{}

// ToolsFactory opens the toolbox of a workspace folder; close is called when the run ends.
type ToolsFactory func(workspace string) (tb Toolbox, close func() error, err error)

// StaticTools is a ToolsFactory that always returns tb.
func StaticTools(tb Toolbox) ToolsFactory {
	return func(string) (Toolbox, func() error, error) { return tb, func() error { return nil }, nil }
}

// WorkspaceTools is the ToolsFactory of the app: the workspace file tools of the chat's
// folder (plus extra tools), in a *tools.Registry; the folder is released when the run ends.
func WorkspaceTools(opts tools.WorkspaceOptions, extra ...tools.Tool) ToolsFactory {
	return func(dir string) (Toolbox, func() error, error) {
		if dir == "" {
			return nil, nil, errors.New("the chat has no workspace folder: open one in the window, or pass --workspace DIR")
		}
		ws, err := tools.OpenWorkspace(dir, opts)
		if err != nil {
			return nil, nil, err
		}
		reg, err := tools.NewRegistry(append(ws.Tools(), extra...)...)
		if err != nil {
			ws.Close()
			return nil, nil, err
		}
		return workspaceBox{reg, ws}, ws.Close, nil
	}
}
