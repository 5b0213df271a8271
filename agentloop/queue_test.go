package agentloop

import (
	"context"
	"errors"
	"slices"
	"sync"
	"testing"

	"prototyper/events"
	"prototyper/model"
	"prototyper/store"
	"prototyper/tools"
)

func TestAQueuedMessageCanBeChangedOrTakenBackUntilTheRunTakesIt(t *testing.T) {
	release := make(chan struct{})
	h := newHarness(t, harnessOptions{model: "steered", approve: ApproveAuto, extra: []tools.Tool{waitTool(release)}})
	whenWaitRuns(h, release, func(chatID string) {
		sendAll(t, h, chatID, "never mind", "write nothing")
		if q := h.agent.Queued(chatID); !slices.Equal(q, []string{"never mind", "write nothing"}) {
			t.Errorf("queued = %q", q)
		}
		if err := h.agent.EditQueued(context.Background(), chatID, 0, " "); err != nil {
			t.Error(err)
		}
		if err := h.agent.EditQueued(context.Background(), chatID, 0, "write nothing at all"); err != nil {
			t.Error(err)
		}
		if err := h.agent.EditQueued(context.Background(), chatID, 1, "x"); !errors.Is(err, ErrNotQueued) {
			t.Errorf("editing a message not queued: %v, want ErrNotQueued", err)
		}
	})
	out := h.runCompleted(t, "wait then write")
	msgs := h.messages(t, out.ChatID)
	if roles(msgs) != "UATTUA" || msgs[4].Content != "write nothing at all" {
		t.Fatalf("messages %+v: want the one changed message injected, the taken-back one gone", msgs)
	}
	if q := h.agent.Queued(out.ChatID); len(q) != 0 {
		t.Errorf("queued after the run = %q", q)
	}
	if err := h.agent.EditQueued(context.Background(), out.ChatID, 0, "late"); !errors.Is(err, ErrNotQueued) {
		t.Errorf("editing after the run: %v, want ErrNotQueued", err)
	}
}

func TestAFileNamedInAMessageQueuedAfterTheLastSafePointGoesWithItIntoTheFollowUpRun(t *testing.T) {
	for name, send := range map[string]func(a *Agent, id string) error{
		"sent so": func(a *Agent, id string) error {
			_, err := a.Send(context.Background(), id, "see @notes.txt")
			return err
		},
		"edited to name it": func(a *Agent, id string) error {
			if _, err := a.Send(context.Background(), id, "see the notes"); err != nil {
				return err
			}
			return a.EditQueued(context.Background(), id, 0, "see @notes.txt")
		},
	} {
		t.Run(name, func(t *testing.T) {
			readFile := tools.New("read_file", "Read a file.").Param("path", "string", "The path.", tools.Required).
				Handle(func(ctx context.Context, c tools.Call, _ tools.ProgressFunc) (tools.Result, error) {
					return tools.Result{Content: "the notes"}, nil
				})
			db, id := sendAfterStop(t, func(store.Message) model.Turn { return answer("read") }, send, readFile)
			msgs, _ := db.Messages(id)
			i := slices.IndexFunc(msgs, func(m store.Message) bool { return m.Content == "see @notes.txt" })
			if i < 0 || len(msgs[i].Files) != 1 || msgs[i].Files[0].Content != "the notes" {
				t.Fatalf("messages %+v: the follow-up's message should take the file it names", msgs)
			}
		})
	}
}

// A message shown as queued survives a kill -9: the store keeps the queue as it changes, and
// forgets a message only once the run stored it as the chat's.
func TestAQueuedMessageIsKeptInTheStoreUntilTheRunStoresItAsTheChats(t *testing.T) {
	release := make(chan struct{})
	h := newHarness(t, harnessOptions{model: "steered", approve: ApproveAuto, extra: []tools.Tool{waitTool(release)}})
	kept := func(chatID string) []string {
		q, err := h.db.Queued()
		if err != nil {
			t.Fatal(err)
		}
		return q[chatID]
	}
	whenWaitRuns(h, release, func(chatID string) {
		sendAll(t, h, chatID, "never mind", "write nothing")
		if q := kept(chatID); !slices.Equal(q, []string{"never mind", "write nothing"}) {
			t.Errorf("kept once sent: %q", q)
		}
		if err := h.agent.EditQueued(context.Background(), chatID, 0, " "); err != nil {
			t.Error(err)
		}
		if q := kept(chatID); !slices.Equal(q, []string{"write nothing"}) {
			t.Errorf("kept once one was taken back: %q", q)
		}
	})
	out := h.runCompleted(t, "wait then write")
	if msgs := h.messages(t, out.ChatID); roles(msgs) != "UATTUA" || msgs[4].Content != "write nothing" {
		t.Fatalf("messages %+v: want the queued message injected", msgs)
	}
	if q, _ := h.db.Queued(); len(q) != 0 {
		t.Errorf("kept after the run took it: %q", q)
	}
}

// A Stop leaves the messages its run never took to the user: the window puts them back in the
// box, and the store keeps them as the chat's unsent text at once.
func TestAStoppedRunsQueuedMessagesAreKeptAsTheChatsUnsentText(t *testing.T) {
	h := newHarness(t, harnessOptions{model: "steered", approve: ApproveAuto, extra: []tools.Tool{waitTool(make(chan struct{}))}})
	whenWaitRuns(h, nil, func(chatID string) {
		sendAll(t, h, chatID, "then this")
		if err := h.agent.Stop(chatID); err != nil {
			t.Error(err)
		}
	})
	out := h.runOnce(t, "wait then write", RunOptions{})
	if out.StopReason != events.StopAborted {
		t.Fatalf("stop reason %q, want aborted", out.StopReason)
	}
	if d, _ := h.db.Drafts(); d[out.ChatID] != "then this" {
		t.Errorf("unsent text %q, want the queued message", d)
	}
	if q, _ := h.db.Queued(); len(q) != 0 {
		t.Errorf("kept as queued after the Stop: %q", q)
	}
}

// whenWaitRuns calls fn with the chat's id once the wait tool's call is running (the run is
// busy there), then lets the call end by closing release (nil: it waits until stopped).
func whenWaitRuns(h *harness, release chan struct{}, fn func(chatID string)) {
	h.rec.react = func(e events.Event) {
		if e.Type != events.ToolCall || e.State != events.ToolStateRunning || e.Name != "wait" {
			return
		}
		if release != nil {
			defer close(release)
		}
		fn(e.ChatID)
	}
}

// sendAll sends each text to the chat, in order.
func sendAll(t *testing.T, h *harness, chatID string, texts ...string) {
	t.Helper()
	for _, text := range texts {
		if _, err := h.agent.Send(context.Background(), chatID, text); err != nil {
			t.Error(err)
		}
	}
}

// A message the run is storing stays kept while a message sent meanwhile is kept beside it:
// the kept queue loses neither before each is the chat's.
func TestAMessageSentWhileTheRunStoresAQueuedOneKeepsBothKept(t *testing.T) {
	release := make(chan struct{})
	held := &heldSteering{storing: make(chan struct{}), release: make(chan struct{})}
	h := newHarness(t, harnessOptions{model: "steered", approve: ApproveAuto, extra: []tools.Tool{waitTool(release)},
		cfg: func(c *Config) { held.DB = c.Store.(*store.DB); c.Store = held }})
	var keptMeanwhile []string
	whenWaitRuns(h, release, func(chatID string) {
		sendAll(t, h, chatID, "write nothing")
		go func() { // once the run stores it, another message comes
			<-held.storing
			sendAll(t, h, chatID, "and say so")
			q, _ := h.db.Queued()
			keptMeanwhile = q[chatID]
			close(held.release)
		}()
	})
	out := h.runCompleted(t, "wait then write")
	if !slices.Equal(keptMeanwhile, []string{"write nothing", "and say so"}) {
		t.Errorf("kept while the first was being stored: %q; want both", keptMeanwhile)
	}
	if q, _ := h.db.Queued(); len(q) != 0 {
		t.Errorf("kept after the run: %q", q)
	}
	var users []string
	for _, m := range h.messages(t, out.ChatID) {
		if m.Role == store.RoleUser {
			users = append(users, m.Content)
		}
	}
	if !slices.Equal(users, []string{"wait then write", "write nothing", "and say so"}) {
		t.Errorf("the chat's messages %q; want each once", users)
	}
}

// heldSteering holds the store's write of the first steering message until released.
type heldSteering struct {
	*store.DB
	storing, release chan struct{}
	once             sync.Once
}

func (s *heldSteering) AppendMessage(chatID string, m store.Message) (store.Message, error) {
	if m.Role == store.RoleUser && m.Content == "write nothing" {
		s.once.Do(func() { close(s.storing); <-s.release })
	}
	return s.DB.AppendMessage(chatID, m)
}
