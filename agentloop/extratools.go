package agentloop

import (
	"context"

	"prototyper/events"
	"prototyper/store"
	"prototyper/tools"
)

// ExtraTools are the tools a workspace has beyond its file tools: the MCP servers' (a
// *mcptools.Set is one).
type ExtraTools interface {
	// ToolsFor returns workspace's extra tools, starting what they need within a bounded
	// time, and one sentence for each that could not be offered.
	ToolsFor(ctx context.Context, workspace string) ([]tools.Tool, []string)
}

// CodeToolsUnavailable is the code of the `error` event that says, in the chat, that some
// tools could not be offered (an MCP server that failed to start or died); the run goes on
// without them.
const CodeToolsUnavailable = "tools_unavailable"

// withExtraTools is [WorkspaceTools] with extra's tools of the workspace added; what could
// not be offered travels with the toolbox as notices.
func withExtraTools(opts tools.WorkspaceOptions, extra ExtraTools) ToolsFactory {
	return func(dir string) (Toolbox, func() error, error) {
		var more []tools.Tool
		var notices []string
		if dir != "" {
			more, notices = extra.ToolsFor(context.Background(), dir)
		}
		tb, closeTools, err := WorkspaceTools(opts, more...)(dir)
		if err != nil || len(notices) == 0 {
			return tb, closeTools, err
		}
		return noticedToolbox{tb, notices}, closeTools, nil
	}
}

// noticedToolbox is a toolbox with the sentences about the tools it lacks.
type noticedToolbox struct {
	Toolbox
	notices []string
}

// toolNotices says, as `error` events in the chat, which tools tb could not offer, and keeps
// the sentences with the run, so that the chat reopened says them again.
func (r *run) toolNotices(tb Toolbox) {
	nt, ok := tb.(noticedToolbox)
	if !ok || len(nt.notices) == 0 || r.awaitCommit() != nil {
		return
	}
	no := false
	for _, n := range nt.notices {
		if _, err := r.a.cfg.Store.AddRunNote(r.id, store.RunNote{Code: CodeToolsUnavailable, Message: n}); err != nil {
			r.emitError(err)
		}
		r.emit(events.Event{Type: events.Error, Code: CodeToolsUnavailable, Message: n, Retryable: &no})
	}
}
