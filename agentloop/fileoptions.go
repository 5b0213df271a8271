package agentloop

import "prototyper/tools"

// FileOptions are the options the agent's file tools open a workspace with (the app's own
// files refused): what else reads a workspace for the user (the preview) opens it with them.
func (a *Agent) FileOptions() tools.WorkspaceOptions { return a.cfg.Files }
