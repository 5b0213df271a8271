package agentloop

import (
	"context"
	"encoding/json"
	"errors"

	"prototyper/tools"
)

// Toolbox is what a run can call: the tools' definitions (sent to the model, and read for
// each tool's mode and default approval) and a way to run one call. A *tools.Registry is one.
type Toolbox interface {
	Definitions() []tools.Definition
	// Run executes one call and never fails: an unknown tool, invalid arguments or a failing
	// tool come back as a result with IsError set.
	Run(ctx context.Context, name, callID string, args json.RawMessage, progress tools.ProgressFunc) tools.Result
}

// ArgumentValidator is implemented by toolboxes that can check a call's arguments without
// running it; the loop then validates before the hooks and the approval policy see the call.
type ArgumentValidator interface {
	Validate(name string, args json.RawMessage) (tools.Args, error)
}

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
		return reg, ws.Close, nil
	}
}
