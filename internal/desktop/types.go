package desktop

import (
	"prototyper/agentloop"
	"prototyper/model/ollama"
	"prototyper/store"
	"prototyper/tools/mcptools"
)

// The types the window's calls carry, named where the session is: they are their owners'
// types (aliases, so the window's generated models keep their owners' names), and app.go
// binds the session without importing the agent, the clients or the store.
type (
	ChatSummary      = agentloop.ChatSummary
	Budget           = agentloop.Budget
	UndoOptions      = agentloop.UndoOptions
	UndoResult       = agentloop.UndoResult
	FileChange       = agentloop.FileChange
	CatalogEntry     = ollama.CatalogEntry
	StarterModel     = ollama.StarterModel
	ChatHit          = store.ChatHit
	ModelCheck       = store.ModelCheck
	WorkspaceServers = mcptools.WorkspaceServers
)
