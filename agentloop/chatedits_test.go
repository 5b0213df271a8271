package agentloop

import (
	"context"
	"errors"
	"slices"
	"sync"
	"testing"
	"time"

	"prototyper/events"
	"prototyper/model"
	"prototyper/store"
)

// runningTool waits until the tool call of a chat's run is running, and returns the chat.
func runningTool(t *testing.T, a *Agent, rec *recorder) string {
	t.Helper()
	id, err := a.Send(context.Background(), "", "go")
	if err != nil {
		t.Fatal(err)
	}
	rec.waitFor(t, "the call running", func(evs []events.Event) bool {
		for _, e := range evs {
			if e.ChatID == id && e.Type == events.ToolCall && e.State == events.ToolStateRunning {
				return true
			}
		}
		return false
	})
	return id
}

// A chat deleted while its run works, with a message queued behind it, is deleted once its
// run has ended: the run wrote nothing after, the queued message started no follow-up run
// (the model is asked nothing more), and the agent keeps no phase, run or queue of it.
func TestDeletingARunningChatEndsItsRunFirstAndForgetsItsQueue(t *testing.T) {
	block := make(chan struct{})
	m := &fakeModel{turn: func(req model.Request) model.Turn { return toolTurn(tc("", "wait", `{}`)) }}
	a, db, rec := fakeHarness(t, m, nil, waitTool(block))
	id := runningTool(t, a, rec)
	if _, err := a.Send(context.Background(), id, "and then this"); err != nil {
		t.Fatal(err)
	}
	if q := a.Queued(id); len(q) != 1 {
		t.Fatalf("queued = %q, want the message sent during the run", q)
	}
	if err := a.DeleteChat(context.Background(), id); err != nil {
		t.Fatal(err)
	}
	if _, err := db.Chat(id); err == nil {
		t.Fatal("the chat is still stored")
	}
	m.mu.Lock()
	asked := len(m.reqs)
	m.mu.Unlock()
	if asked != 1 {
		t.Errorf("the model was asked %d times, want once: the queued message started a run", asked)
	}
	if p, run, q := a.Phase(id), a.LiveRun(id), a.Queued(id); p != events.PhaseIdle || run != "" || len(q) > 0 {
		t.Errorf("the agent keeps phase %s, run %q, queue %q of the deleted chat", p, run, q)
	}
	for _, e := range rec.events() {
		if e.ChatID == id && e.Type == events.Error {
			t.Errorf("an error was said about the deleted chat: %s", e.Message)
		}
	}
	if _, err := a.Send(context.Background(), id, "too late"); err == nil {
		t.Error("a message to the deleted chat was taken")
	}
}

// A run that does not end within the delete's context keeps its chat: nothing is deleted, the
// caller is told to try again, and the chat is listed again. A later delete leaves the chat out
// of lists at once, and deletes it once the run ended.
func TestADeleteThatCannotWaitForTheRunDeletesNothing(t *testing.T) {
	release := make(chan struct{})
	m := &fakeModel{turn: func(req model.Request) model.Turn {
		<-release // a model that does not hear the stop
		return answer("late")
	}}
	a, db, _ := fakeHarness(t, m, nil)
	var once sync.Once
	free := func() { once.Do(func() { close(release) }) }
	t.Cleanup(free) // before the agent's shutdown, which waits for the run
	id, err := a.Send(context.Background(), "", "go")
	if err != nil {
		t.Fatal(err)
	}
	for deadline := time.Now().Add(10 * time.Second); ; time.Sleep(5 * time.Millisecond) {
		m.mu.Lock()
		asked := len(m.reqs)
		m.mu.Unlock()
		if asked > 0 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatal("the model was never asked")
		}
	}
	ctx, cancel := context.WithTimeout(context.Background(), 50*time.Millisecond)
	defer cancel()
	if err := a.DeleteChat(ctx, id); !errors.Is(err, ErrStillStopping) {
		t.Fatalf("DeleteChat = %v, want %v", err, ErrStillStopping)
	}
	if _, err := db.Chat(id); err != nil {
		t.Fatalf("the chat whose run did not end was deleted: %v", err)
	}
	if !listed(t, a, id) {
		t.Error("the chat a delete gave up on is no longer listed")
	}
	deleted := make(chan error, 1)
	go func() { deleted <- a.DeleteChat(context.Background(), id) }()
	// while the delete waits for the run, a list (the window asks for one when the run's end is
	// said) leaves the chat out, so that it does not come back in the window
	for deadline := time.Now().Add(10 * time.Second); listed(t, a, id); time.Sleep(5 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatal("the chat being deleted is still listed")
		}
	}
	free()
	if err := <-deleted; err != nil {
		t.Fatal(err)
	}
	if _, err := db.Chat(id); err == nil {
		t.Fatal("the chat is still stored")
	}
}

// listed reports whether the agent's list of chats holds id.
func listed(t *testing.T, a *Agent, id string) bool {
	t.Helper()
	list, err := a.Summaries()
	if err != nil {
		t.Fatal(err)
	}
	return slices.ContainsFunc(list, func(s ChatSummary) bool { return s.ID == id })
}

// A chat that runs or waits for an approval keeps its folder, model and history; idle, it
// changes.
func TestAChatChangesOnlyWhileIdle(t *testing.T) {
	block := make(chan struct{})
	m := &fakeModel{turn: func(req model.Request) model.Turn { return toolTurn(tc("", "wait", `{}`)) }}
	a, db, rec := fakeHarness(t, m, nil, waitTool(block))
	id := runningTool(t, a, rec)
	msgs, err := db.Messages(id)
	if err != nil || len(msgs) == 0 {
		t.Fatalf("messages = %v, %v", msgs, err)
	}
	for name, change := range map[string]func() error{
		"model": func() error {
			_, err := a.ChangeChat(id, func(c *store.Chat) { c.Model = "other" })
			return err
		},
		"version": func() error { return a.ShowVersion(id, msgs[0].ID, 1) },
		"edit":    func() error { return a.EditAndResend(context.Background(), id, msgs[0].ID, "instead") },
	} {
		if err := change(); !errors.Is(err, ErrChatNotIdle) {
			t.Errorf("%s of a running chat = %v, want %v", name, err, ErrChatNotIdle)
		}
	}
	if c, _ := db.Chat(id); c.Model == "other" {
		t.Error("the running chat's model changed")
	}
	if err := a.Stop(id); err != nil {
		t.Fatal(err)
	}
	for deadline := time.Now().Add(10 * time.Second); a.Phase(id) != events.PhaseIdle; time.Sleep(5 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatal("the stopped run did not end")
		}
	}
	c, err := a.ChangeChat(id, func(c *store.Chat) { c.Model = "other" })
	if err != nil || c.Model != "other" {
		t.Fatalf("ChangeChat of the idle chat = %+v, %v", c, err)
	}
}
