package agentloop

import (
	"context"
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
// images; an empty text takes it (and its images) out of the queue. The new text is admitted
// as a message sent now would be (see [Agent.Send]): the files it names with @path are read
// now and go with it, into the run that takes it or into a follow-up run; a file that cannot
// be attached, or a text too long for the model's context, refuses the edit and the message
// keeps its old text. A message already given to the model is [ErrNotQueued].
func (a *Agent) EditQueued(ctx context.Context, chatID string, i int, text string) error {
	cs := a.known(chatID)
	if cs == nil {
		return ErrNotQueued
	}
	if strings.TrimSpace(text) == "" {
		return a.editQueued(cs, i, nil, func() { cs.queue = append(cs.queue[:i:i], cs.queue[i+1:]...) })
	}
	var was userMessage
	if err := a.editQueued(cs, i, nil, func() { was = cs.queue[i] }); err != nil {
		return err // not queued: nothing to read the files for
	}
	in, err := a.admitTo(ctx, chatID, text, nil) // its images stay as they were queued
	if err != nil {
		return err
	}
	defer in.admission.release() // the run that takes the message opens its own
	return a.editQueued(cs, i, &was, func() { cs.queue[i].text, cs.queue[i].files = in.prompt, in.files })
}

// editQueued calls edit under cs.mu while message i waits in the queue, and, with was, is
// still the message was (the run may have taken the queue since, and a newer message
// stand at i).
func (a *Agent) editQueued(cs *chatState, i int, was *userMessage, edit func()) error {
	cs.mu.Lock()
	defer cs.mu.Unlock()
	if i < 0 || i >= len(cs.queue) {
		return ErrNotQueued
	}
	if was != nil && (cs.queue[i].text != was.text || len(cs.queue[i].images) != len(was.images)) {
		return ErrNotQueued
	}
	edit()
	return a.keepQueue(cs)
}
