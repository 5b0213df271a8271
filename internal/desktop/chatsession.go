package desktop

import (
	"context"
	"errors"
	"fmt"
	"os"
	"strings"

	"prototyper/agentloop"
	"prototyper/store"
)

// A chat owns its workspace and model (docs/ARCHITECTURE.md, "A chat owns its workspace and
// model"): a message to a chat runs in the chat's folder with the chat's model, whatever was
// chosen for new chats since. The header shows the open chat's; changing either for an open
// chat changes that chat, from its next message on, or starts a new chat. What the user last
// chose or sent with is what a new chat takes.

// ChatSearchLimit is how many chats a search returns at most.
const ChatSearchLimit = 50

// checkFolder is dir as an absolute path when it is a folder that exists, else a sentence
// saying what to do.
func checkFolder(dir string) (string, error) {
	abs, err := absFolder(dir)
	if err != nil {
		return "", err
	}
	info, err := os.Stat(abs)
	switch {
	case err == nil && !info.IsDir():
		return "", fmt.Errorf("%s is a file, not a folder: pick the folder that holds it, or another one", abs)
	case err != nil:
		return "", fmt.Errorf("%s is not a folder that exists: pick another one, or create it first", abs)
	}
	return abs, nil
}

// changeIdleChat applies edit to a chat that neither runs nor waits for the user (through the
// agent, under the chat's lock), and makes its folder and model the ones new chats take.
func (d *Desktop) changeIdleChat(chatID string, edit func(*store.Chat)) (agentloop.ChatSummary, error) {
	c, err := d.agent.ChangeChat(chatID, edit)
	if err != nil {
		return agentloop.ChatSummary{}, err
	}
	d.useLast(c.Workspace, c.Model)
	return d.agent.Summary(c), d.remember()
}

// SetChatWorkspace moves a chat to the folder dir: its next message runs there. A chat that
// runs or waits for an approval is refused with [agentloop.ErrChatNotIdle].
func (d *Desktop) SetChatWorkspace(chatID, dir string) (agentloop.ChatSummary, error) {
	abs, err := checkFolder(dir)
	if err != nil {
		return agentloop.ChatSummary{}, err
	}
	return d.changeIdleChat(chatID, func(c *store.Chat) { c.Workspace = abs })
}

// SetChatModel makes name the model of a chat's next messages. A chat that runs or waits for
// an approval is refused with [agentloop.ErrChatNotIdle].
func (d *Desktop) SetChatModel(chatID, name string) (agentloop.ChatSummary, error) {
	name = strings.TrimSpace(name)
	if name == "" {
		return agentloop.ChatSummary{}, errors.New("no model given: pick one in the model list")
	}
	return d.changeIdleChat(chatID, func(c *store.Chat) { c.Model = name })
}

// UseFolder makes dir, when it is a folder that exists, the folder of new chats, now and at the
// next start; it returns the folder's absolute path.
func (d *Desktop) UseFolder(dir string) (string, error) {
	abs, err := checkFolder(dir)
	if err != nil {
		return "", err
	}
	return abs, d.SetWorkspace(abs)
}

// useLast makes workspace and model (those not empty) the ones new chats take.
func (d *Desktop) useLast(workspace, model string) {
	d.mu.Lock()
	defer d.mu.Unlock()
	if workspace != "" {
		d.workspace = workspace
	}
	if model != "" {
		d.model = model
	}
}

// OpenedChat is a chat as the window opens it: the agent's view, without the tool-call
// records of versions not shown, and with the versions of its edited history.
type OpenedChat = agentloop.OpenedChat

// OpenChat reads one chat as the window shows it.
func (d *Desktop) OpenChat(chatID string) (OpenedChat, error) {
	opened, err := d.agent.Open(chatID)
	if err != nil {
		return OpenedChat{}, err
	}
	versions, hidden, err := d.db.Versions(chatID)
	if err != nil {
		return OpenedChat{}, err
	}
	if len(hidden) > 0 {
		shown := opened.ToolCalls[:0:0]
		for _, r := range opened.ToolCalls {
			if !hidden[r.MessageID] {
				shown = append(shown, r)
			}
		}
		opened.ToolCalls = shown
	}
	opened.Versions = versions
	return opened, nil
}

// EditAndResend replaces the user message messageID with text and sends it: the chat goes on
// from there, and the message with everything after it stays as an earlier version
// ([agentloop.Agent.EditAndResend]). Regenerating an answer is resending the message it
// answered. A message the agent refuses leaves the chat as it was; one it takes makes the
// chat's folder and model those new chats take, as [Desktop.Send] does.
func (d *Desktop) EditAndResend(ctx context.Context, chatID, messageID, text string) (SendResult, error) {
	if strings.TrimSpace(text) == "" {
		return SendResult{}, errors.New("the message is empty: type what you want built")
	}
	if err := d.agent.EditAndResend(ctx, chatID, messageID, text); err != nil {
		return SendResult{}, err
	}
	if c, err := d.db.Chat(chatID); err == nil {
		d.useLast(c.Workspace, c.Model)
	}
	return SendResult{ChatID: chatID}, d.remember()
}

// ShowVersion shows version index (1-based, oldest first) of a chat's history at the message
// shownID, which starts the version shown now; the chat goes on from it. A chat that runs or
// waits for the user is refused with [agentloop.ErrChatNotIdle].
func (d *Desktop) ShowVersion(chatID, shownID string, index int) (OpenedChat, error) {
	if err := d.agent.ShowVersion(chatID, shownID, index); err != nil {
		return OpenedChat{}, err
	}
	return d.OpenChat(chatID)
}

// SearchChats finds the chats whose title or messages hold query, newest first.
func (d *Desktop) SearchChats(query string) ([]store.ChatHit, error) {
	return d.db.SearchChats(query, ChatSearchLimit)
}

// EditQueued replaces a message sent while the chat was busy and not yet given to the model
// (index 0 the oldest waiting); an empty text takes it back.
func (d *Desktop) EditQueued(ctx context.Context, chatID string, index int, text string) error {
	return d.agent.EditQueued(ctx, chatID, index, text)
}
