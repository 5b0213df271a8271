package vocab

// The roles of a chat's messages: the words both APIs use, and the store keeps a message in.
const (
	RoleSystem    = "system"
	RoleUser      = "user"
	RoleAssistant = "assistant"
	RoleTool      = "tool"
)
