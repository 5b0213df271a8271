package agentloop

import (
	"context"
	"errors"
	"slices"
	"testing"

	"prototyper/events"
	"prototyper/model"
	"prototyper/store"
	"prototyper/tools"
)

func TestAQueuedMessageCanBeChangedOrTakenBackUntilTheRunTakesIt(t *testing.T) {
	release := make(chan struct{})
	h := newHarness(t, harnessOptions{model: "steered", approve: ApproveAuto, extra: []tools.Tool{waitTool(release)}})
	h.rec.react = func(e events.Event) {
		if e.Type != events.ToolCall || e.State != events.ToolStateRunning || e.Name != "wait" {
			return
		}
		defer close(release)
		for _, text := range []string{"never mind", "write nothing"} {
			if _, err := h.agent.Send(context.Background(), e.ChatID, text); err != nil {
				t.Error(err)
			}
		}
		if q := h.agent.Queued(e.ChatID); !slices.Equal(q, []string{"never mind", "write nothing"}) {
			t.Errorf("queued = %q", q)
		}
		if err := h.agent.EditQueued(context.Background(), e.ChatID, 0, " "); err != nil {
			t.Error(err)
		}
		if err := h.agent.EditQueued(context.Background(), e.ChatID, 0, "write nothing at all"); err != nil {
			t.Error(err)
		}
		if err := h.agent.EditQueued(context.Background(), e.ChatID, 1, "x"); !errors.Is(err, ErrNotQueued) {
			t.Errorf("editing a message not queued: %v, want ErrNotQueued", err)
		}
	}
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
	h.rec.react = func(e events.Event) {
		if e.Type != events.ToolCall || e.State != events.ToolStateRunning || e.Name != "wait" {
			return
		}
		defer close(release)
		for _, text := range []string{"never mind", "write nothing"} {
			if _, err := h.agent.Send(context.Background(), e.ChatID, text); err != nil {
				t.Error(err)
			}
		}
		if q := kept(e.ChatID); !slices.Equal(q, []string{"never mind", "write nothing"}) {
			t.Errorf("kept once sent: %q", q)
		}
		if err := h.agent.EditQueued(context.Background(), e.ChatID, 0, " "); err != nil {
			t.Error(err)
		}
		if q := kept(e.ChatID); !slices.Equal(q, []string{"write nothing"}) {
			t.Errorf("kept once one was taken back: %q", q)
		}
	}
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
	h.rec.react = func(e events.Event) {
		if e.Type != events.ToolCall || e.State != events.ToolStateRunning || e.Name != "wait" {
			return
		}
		if _, err := h.agent.Send(context.Background(), e.ChatID, "then this"); err != nil {
			t.Error(err)
		}
		if err := h.agent.Stop(e.ChatID); err != nil {
			t.Error(err)
		}
	}
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
