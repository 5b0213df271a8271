package agentloop

import (
	"context"
	"errors"

	"prototyper/events"
	"prototyper/store"
)

// A chat's folder, model and history change only through the agent, under the chat's lock,
// and only while the chat is idle: a run starting meanwhile waits for the change, and a change
// asked while a run is live or waits for the user's answer is refused, since what runs or waits
// was shown with the old ones. Deleting a chat stops its run, waits for it to end and forgets
// what the agent kept of it (its queue, a paused batch or summary offer), so that no run writes
// to a deleted chat and no state outlives it.

// ErrChatNotIdle is returned when a chat's folder, model or history would change while a run
// of it is live or waits for the user's answer (an approval, a summary offer).
var ErrChatNotIdle = errors.New("this chat is running or waiting for your answer: stop it or answer first, then change it")

// ErrNotUserMessage is returned by [Agent.EditAndResend] for a message the user did not write.
var ErrNotUserMessage = errors.New("only a message you wrote can be edited and sent again")

// ErrStillStopping is returned by [Agent.DeleteChat] when the chat's run did not end before
// the caller's context did: nothing was deleted.
var ErrStillStopping = errors.New("the chat's run is still stopping: try deleting it again in a moment")

// idleLocked reports whether the chat neither runs nor waits for the user. cs.mu must be held.
func (cs *chatState) idleLocked() bool {
	return cs.done == nil && cs.paused == nil && cs.phase == events.PhaseIdle
}

// whileIdle calls change under the chat's lock when the chat is idle, else returns
// [ErrChatNotIdle]. The store writes of change hold the chat's lock, as a run's start does.
func (a *Agent) whileIdle(chatID string, change func(cs *chatState) error) error {
	cs := a.chat(chatID)
	cs.mu.Lock()
	defer cs.mu.Unlock()
	if !cs.idleLocked() {
		return ErrChatNotIdle
	}
	return change(cs)
}

// ChangeChat applies change to an idle chat (its folder, its model) and returns the chat as
// stored; a chat that runs or waits for the user is refused with [ErrChatNotIdle].
func (a *Agent) ChangeChat(chatID string, change func(*store.Chat)) (store.Chat, error) {
	var c store.Chat
	err := a.whileIdle(chatID, func(*chatState) (err error) {
		c, err = a.cfg.Store.UpdateChat(chatID, change)
		return err
	})
	return c, err
}

// ShowVersion shows version index (1-based, oldest first) of an idle chat's history at the
// message shownID, which starts the version shown now; the chat goes on from it.
func (a *Agent) ShowVersion(chatID, shownID string, index int) error {
	return a.whileIdle(chatID, func(*chatState) error {
		return a.cfg.Store.ShowVersionAt(chatID, shownID, index)
	})
}

// EditAndResend replaces the user message messageID of an idle chat with text and sends it:
// the chat goes on from there, and the message with everything after it stays as an earlier
// version ([store.DB.ForkAt]). The text is admitted as a message sent now would be (see
// [Agent.Send]) before anything changes; the fork and the run's start then happen under the
// chat's lock, so that no other run or change comes between them. A message that cannot start
// leaves the chat as it was. The message's images go with it again: regenerating an answer is
// resending its question, and the question was its text with its images.
func (a *Agent) EditAndResend(ctx context.Context, chatID, messageID, text string) error {
	var images [][]byte
	isUsers := func(*chatState) error {
		m, err := a.cfg.Store.Message(chatID, messageID)
		if err == nil && m.Role != store.RoleUser {
			err = ErrNotUserMessage
		}
		images = m.Images
		return err
	}
	if err := a.whileIdle(chatID, isUsers); err != nil { // refused before asking the server
		return err
	}
	in, err := a.admitTo(ctx, chatID, text, images)
	if err != nil {
		return err
	}
	defer in.admission.release()
	if a.isDown() {
		return ErrShutDown
	}
	var r *run
	err = a.whileIdle(chatID, func(cs *chatState) error {
		if err := isUsers(cs); err != nil {
			return err
		}
		after, err := a.cfg.Store.ForkAt(chatID, messageID)
		if err != nil {
			return err
		}
		r, err = a.startLocked(cs, startSpec{prompts: []userMessage{{text: in.prompt, images: images, files: in.files}},
			trigger: events.TriggerUser, admission: in.admission})
		if err != nil {
			// refused before anything was stored: the version put aside is shown again
			msgs, _ := a.cfg.Store.Messages(chatID)
			nothingNew := len(msgs) == 0 && after == "" || len(msgs) > 0 && msgs[len(msgs)-1].ID == after
			if nothingNew {
				err = errors.Join(err, a.cfg.Store.ShowVersion(chatID, after, messageID))
			}
		}
		return err
	})
	if err != nil {
		return err
	}
	go r.execute()
	return nil
}

// beingDeleted reports whether DeleteChat is under way for the chat.
func (a *Agent) beingDeleted(chatID string) bool {
	cs := a.known(chatID)
	if cs == nil {
		return false
	}
	cs.mu.Lock()
	defer cs.mu.Unlock()
	return cs.deleting
}

// admitTo admits text with images as a message sent now to the stored chat chatID (see
// [Agent.admit]).
func (a *Agent) admitTo(ctx context.Context, chatID, text string, images [][]byte) (admitted, error) {
	chat, err := a.cfg.Store.Chat(chatID)
	if err != nil {
		return admitted{}, err
	}
	return a.admit(ctx, chat, RunOptions{Images: images}, text)
}

// DeleteChat deletes a chat with its messages, tool-call records and runs. A live run is
// stopped first (as [Agent.Stop] does) and waited for, within ctx: it ends before the chat is
// deleted, so it writes nothing to a deleted chat, and a message queued meanwhile goes with
// the chat. A paused batch or summary offer is dropped with it, unanswered. The deletion holds
// the chat's lock, so a message sent at the same time either lands before it (and is deleted
// with the chat) or finds no chat; the agent then forgets the chat and stops the development
// servers its runs started.
func (a *Agent) DeleteChat(ctx context.Context, chatID string) error {
	cs := a.chat(chatID)
	cs.mu.Lock()
	// from now on lists leave the chat out: one asked when the run's end is said (the window
	// asks then) must not bring it back
	cs.deleting = true
	for cs.done != nil {
		cs.cancel()
		cs.queue = nil
		done := cs.done
		cs.mu.Unlock()
		select {
		case <-done:
		case <-ctx.Done():
			cs.mu.Lock()
			cs.deleting = false
			cs.mu.Unlock()
			return ErrStillStopping
		}
		cs.mu.Lock() // a message queued while the run ended may have started a follow-up
	}
	err := a.cfg.Store.DeleteChat(chatID)
	if err == nil {
		// no phase event: the window drops the chat itself, and nothing is left to change
		// the store forgot the chat's kept queue with it
		cs.paused, cs.queue, cs.injecting, cs.queueKept, cs.keptImages, cs.runID, cs.phase = nil, nil, nil, false, nil, "", events.PhaseIdle
	} else {
		cs.deleting = false
	}
	cs.mu.Unlock()
	if err != nil {
		return err
	}
	a.forget(chatID)
	a.stopServers(chatID)
	return nil
}
