package agentloop

import (
	"errors"
	"strings"
)

// ErrNotQueued is returned by EditQueued for a message that is no longer waiting: the run
// already gave it to the model (or the chat's run ended and a new one took it).
var ErrNotQueued = errors.New("that message was already given to the model: send a new one instead")

// Queued returns the texts of the messages sent to a chat while it was busy that the run has
// not given to the model yet, oldest first (a message keeps its images while it waits).
func (a *Agent) Queued(chatID string) []string {
	cs := a.known(chatID)
	if cs == nil {
		return nil
	}
	cs.mu.Lock()
	defer cs.mu.Unlock()
	texts := make([]string, len(cs.queue))
	for i, q := range cs.queue {
		texts[i] = q.text
	}
	return texts
}

// EditQueued replaces the text of the waiting message i (0 the oldest) of a chat, keeping its
// images; an empty text takes it (and its images) out of the queue. A message already given to the model is [ErrNotQueued].
func (a *Agent) EditQueued(chatID string, i int, text string) error {
	cs := a.known(chatID)
	if cs == nil {
		return ErrNotQueued
	}
	cs.mu.Lock()
	defer cs.mu.Unlock()
	if i < 0 || i >= len(cs.queue) {
		return ErrNotQueued
	}
	if strings.TrimSpace(text) == "" {
		cs.queue = append(cs.queue[:i:i], cs.queue[i+1:]...)
		return nil
	}
	cs.queue[i].text, cs.queue[i].files = text, nil // the files named by the old text are not this one's
	return nil
}
