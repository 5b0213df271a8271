package agentloop

import (
	"context"
	"errors"
	"sync"
	"testing"
	"time"

	"prototyper/events"
	"prototyper/model"
	"prototyper/store"
)

// heldCommit is a store whose run starts wait until the test lets them commit (or fail), so
// that a test can see what happens while the disk is busy.
type heldCommit struct {
	*store.DB
	started chan struct{} // a run start began committing
	release chan error    // what the held commit returns: nil commits it
	mu      sync.Mutex
	durable bool // the held commit is on disk
}

func (h *heldCommit) StartRunWith(r store.Run, msgs ...store.Message) (store.Run, []store.Message, error) {
	h.started <- struct{}{}
	if err := <-h.release; err != nil {
		return r, nil, err
	}
	r, saved, err := h.DB.StartRunWith(r, msgs...)
	h.mu.Lock()
	h.durable = err == nil
	h.mu.Unlock()
	return r, saved, err
}

func (h *heldCommit) isDurable() bool {
	h.mu.Lock()
	defer h.mu.Unlock()
	return h.durable
}

// heldAnswer is a model that notes each request and answers only when the test says, or ends
// with the request's context.
type heldAnswer struct {
	asked  chan model.Request
	answer chan string
}

func (m *heldAnswer) ContextLength(context.Context, string) (int, error) { return 0, nil }

func (m *heldAnswer) Chat(ctx context.Context, req model.Request, fn model.DeltaFunc) (model.Turn, error) {
	m.asked <- req
	select {
	case text := <-m.answer:
		if ctx.Err() != nil {
			// both were ready: the answer is the next request's, this one was cancelled
			m.answer <- text
			return model.Turn{}, ctx.Err()
		}
		t := answer(text)
		return t, fn(model.Delta{Content: text})
	case <-ctx.Done():
		return model.Turn{}, ctx.Err()
	}
}

// within fails the test when ch gives nothing for a long while: what it waits for never came.
func within[T any](t *testing.T, ch <-chan T, what string) T {
	t.Helper()
	select {
	case v := <-ch:
		return v
	case <-time.After(30 * time.Second):
		t.Fatalf("%s never happened", what)
		panic("unreachable")
	}
}

func heldHarness(t *testing.T) (*Agent, *heldCommit, *heldAnswer, *recorder, store.Chat) {
	t.Helper()
	m := &heldAnswer{asked: make(chan model.Request, 4), answer: make(chan string, 4)}
	h := &heldCommit{started: make(chan struct{}, 4), release: make(chan error, 4)}
	a, db, rec := fakeHarness(t, m, func(c *Config) {
		h.DB = c.Store.(*store.DB)
		c.Store = h
	})
	chat, err := db.CreateChat(store.Chat{Title: "t"})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { // a test that failed midway leaves no commit held
		for range cap(h.release) - len(h.release) {
			h.release <- nil
		}
	})
	return a, h, m, rec, chat
}

// sendAway sends text to the chat in the background; Send's error comes on the channel.
func sendAway(a *Agent, chatID, text string) <-chan error {
	sent := make(chan error, 1)
	go func() {
		_, err := a.Send(context.Background(), chatID, text)
		sent <- err
	}()
	return sent
}

func TestTheRequestLeavesWhileTheMessageIsCommittedAndTheRunIsSaidOnlyOnceItIsDurable(t *testing.T) {
	a, h, m, rec, chat := heldHarness(t)
	sent := sendAway(a, chat.ID, "hello")
	within(t, h.started, "the run's commit")
	req := within(t, m.asked, "the request while the message was being committed")
	if last := req.Messages[len(req.Messages)-1]; last.Role != store.RoleUser || last.Content != "hello" {
		t.Errorf("the request ends with %+v, want the user's message", last)
	}
	select {
	case err := <-sent:
		t.Fatalf("Send returned (%v) before the message was on disk", err)
	default:
	}
	if evs := rec.events(); len(evs) > 0 {
		t.Fatalf("said before the message was on disk: %s", summary(evs))
	}

	h.release <- nil
	if err := within(t, sent, "Send's return"); err != nil {
		t.Fatal(err)
	}
	m.answer <- "hi"
	rec.waitFor(t, "the run's end", finished(1))
	var order []events.Type
	for _, e := range rec.events() {
		order = append(order, e.Type)
	}
	if len(order) < 2 || order[0] != events.RunStarted || order[1] != events.PhaseChanged {
		t.Errorf("events = %v, want run.started and its phase first", order)
	}
	msgs, err := h.Messages(chat.ID)
	if err != nil || len(msgs) != 2 || msgs[0].Content != "hello" || msgs[1].Content != "hi" || msgs[0].ID == "" {
		t.Errorf("stored = %+v, %v; want the user's message, then the answer", msgs, err)
	}
}

// Each event the run says is checked as it goes out: the user's message it follows is durable.
func TestNothingOfARunIsSaidBeforeItsMessageIsDurable(t *testing.T) {
	a, h, m, rec, chat := heldHarness(t)
	var early []events.Type
	var mu sync.Mutex
	rec.mu.Lock()
	rec.react = func(e events.Event) {
		if !h.isDurable() {
			mu.Lock()
			early = append(early, e.Type)
			mu.Unlock()
		}
	}
	rec.mu.Unlock()
	h.release <- nil
	m.answer <- "hi"
	if _, err := a.Send(context.Background(), chat.ID, "hello"); err != nil {
		t.Fatal(err)
	}
	rec.waitFor(t, "the run's end", finished(1))
	mu.Lock()
	defer mu.Unlock()
	if len(early) > 0 {
		t.Errorf("said before the user's message was on disk: %v", early)
	}
}

func TestACommitThatFailsCancelsTheRequestSaysNothingAndLeavesTheChatIdle(t *testing.T) {
	a, h, m, rec, chat := heldHarness(t)
	sent := sendAway(a, chat.ID, "hello")
	within(t, h.started, "the run's commit")
	within(t, m.asked, "the request")
	full := errors.New("no space left on device")
	h.release <- full
	if err := within(t, sent, "Send's return"); !errors.Is(err, full) {
		t.Fatalf("Send = %v, want the commit's failure", err)
	}
	if evs := rec.events(); len(evs) > 0 {
		t.Errorf("a run whose message was not kept said: %s", summary(evs))
	}
	if msgs, _ := h.Messages(chat.ID); len(msgs) != 0 {
		t.Errorf("stored %+v, want nothing", msgs)
	}
	if p := a.Phase(chat.ID); p != events.PhaseIdle {
		t.Errorf("phase %s, want idle", p)
	}
	// the request was cancelled: the model is free, and the chat takes the next message
	h.release <- nil
	m.answer <- "hi"
	if _, err := a.Send(context.Background(), chat.ID, "again"); err != nil {
		t.Fatal(err)
	}
	within(t, h.started, "the second run's commit")
	within(t, m.asked, "the second request")
	rec.waitFor(t, "the run's end", finished(1))
	if msgs, _ := h.Messages(chat.ID); len(msgs) != 2 || msgs[0].Content != "again" {
		t.Errorf("stored %+v, want the second message and its answer", msgs)
	}
}
