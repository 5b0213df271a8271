package agentloop

import (
	"context"
	"encoding/json"

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
	Validate(name string, args json.RawMessage) error
}

// ToolsFactory opens the toolbox of a workspace folder; close is called when the run ends.
type ToolsFactory func(workspace string) (tb Toolbox, close func() error, err error)

// StaticTools is a ToolsFactory that always returns tb.
func StaticTools(tb Toolbox) ToolsFactory {
	return func(string) (Toolbox, func() error, error) { return tb, func() error { return nil }, nil }
}
