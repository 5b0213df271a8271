package agentloop

import (
	"encoding/json"

	"prototyper/store"
	"prototyper/tools"
)

// Store is what the agent keeps in the database: chats, their messages, tool-call records
// and runs, and the user's settings. *store.DB is the one the app uses; a test wraps it to
// slow down or fail one chat's writes.
type Store interface {
	Settings() (store.Settings, error)

	ListChats() ([]store.Chat, error)
	Chat(id string) (store.Chat, error)
	CreateChat(c store.Chat) (store.Chat, error)
	UpdateChat(id string, edit func(*store.Chat)) (store.Chat, error)
	DeleteChat(id string) error

	Messages(chatID string) ([]store.Message, error)
	Message(chatID, id string) (store.Message, error)
	ForkAt(chatID, messageID string) (after string, err error)
	ShowVersion(chatID, after, firstID string) error
	ShowVersionAt(chatID, shownID string, index int) error
	AppendMessage(chatID string, m store.Message) (store.Message, error)
	NewMessageSaver(chatID string, m store.Message) (*store.MessageSaver, error)

	ToolCall(chatID, id string) (store.ToolCallRecord, error)
	ToolCalls(chatID string) ([]store.ToolCallRecord, error)
	PutToolCall(r store.ToolCallRecord) error
	StartToolCall(r store.ToolCallRecord, before []tools.PathState) (recorded []string, err error)
	AddBefore(r store.ToolCallRecord, before []tools.PathState) (recorded []string, err error)
	CompleteToolCall(chatID, id string, res store.ToolResult) (store.ToolCallRecord, error)

	RunsOf(chatID string) ([]store.Run, error)
	NewRunID() string
	StartRunWith(r store.Run, msgs ...store.Message) (store.Run, []store.Message, error)
	UpdateRun(id string, edit func(*store.Run)) (store.Run, error)
	FinishRun(id, stopReason string, state json.RawMessage) (store.Run, error)
	AddRunNote(id string, n store.RunNote) (store.Run, error)

	Changes(chatID string) ([]store.Change, error)
	ChangeOutlines(chatID string) ([]store.ChangeOutline, error)
	ChangeHeads(chatID string) ([]store.ChangeOutline, error)
	RunsNotShown(chatID string) (map[string]bool, error)
	RunChange(chatID, runID string) (*store.Change, error)
	RunChangeAt(chatID, runID string, paths []string) ([]store.PathChange, error)
	ContinueChange(chatID, from, to string) (continued bool, err error)
	Content(chatID, hash string) ([]byte, error)
	BeginRevert(j store.RevertJournal, contents []tools.PathState) error
	CommitRevert(j store.RevertJournal) error
	DropRevert(chatID, changeID string) error
	Reverts(chatID string) ([]store.RevertJournal, error)
	UpdateSettings(edit func(*store.Settings) error) (store.Settings, error)

	SetQueued(chatID string, queued []store.Unsent) error
	SetQueuedTexts(chatID string, texts []string) error
	GiveBackQueued(chatID string, given, stillQueued []store.Unsent) error
}

var _ Store = (*store.DB)(nil)
