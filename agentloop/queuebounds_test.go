package agentloop

import (
	"context"
	"errors"
	"testing"

	"prototyper/events"
	"prototyper/model"
	"prototyper/store"
)

// countingStore counts how often the queue's images are written.
type countingStore struct {
	Store
	imageWrites int
}

func (s *countingStore) SetQueued(chatID string, queued []store.Unsent) error {
	s.imageWrites++
	return s.Store.SetQueued(chatID, queued)
}

// whileWaiting runs fn with the chat's id while the chat's run waits in the wait tool (a
// model that calls it once, then answers), then lets it go on.
func whileWaiting(t *testing.T, cfg func(*Config), fn func(a *Agent, chatID string)) {
	t.Helper()
	release := make(chan struct{})
	m := &fakeModel{turn: func(req model.Request) model.Turn {
		if trail(req) == "U" {
			return toolTurn(tc("w1", "wait", `{}`))
		}
		return answer("done")
	}}
	a, _, rec := fakeHarness(t, m, cfg, waitTool(release))
	rec.react = func(e events.Event) {
		if e.Type == events.ToolCall && e.State == events.ToolStateRunning && e.Name == "wait" {
			defer close(release)
			fn(a, e.ChatID)
		}
	}
	runFake(t, a, "wait")
}

// A busy chat's queue holds at most MaxQueued messages, and at most MaxQueuedImageBytes of images
// together: one more is refused with a sentence saying what to do, and nothing is queued.
func TestAQueueWithNoRoomRefusesTheMessageAndSaysWhatToDo(t *testing.T) {
	t.Run("messages", func(t *testing.T) {
		whileWaiting(t, nil, func(a *Agent, chatID string) {
			for i := 0; i < MaxQueued; i++ {
				if _, err := a.Send(context.Background(), chatID, "more"); err != nil {
					t.Fatalf("message %d: %v", i+1, err)
				}
			}
			_, err := a.Send(context.Background(), chatID, "one too many")
			if !errors.Is(err, ErrQueueFull) {
				t.Errorf("message %d: %v; want ErrQueueFull", MaxQueued+1, err)
			}
			if q := a.Queued(chatID); len(q) != MaxQueued {
				t.Errorf("queued %d; want %d", len(q), MaxQueued)
			}
		})
	})
	t.Run("image bytes", func(t *testing.T) {
		big := append(tinyPNG(t), make([]byte, 17<<20)...)
		whileWaiting(t, nil, func(a *Agent, chatID string) {
			for i := 0; i < 3; i++ {
				if _, err := a.SendImages(context.Background(), chatID, store.Chat{}, "this", [][]byte{big}); err != nil {
					t.Fatalf("image %d: %v", i+1, err)
				}
			}
			_, err := a.SendImages(context.Background(), chatID, store.Chat{}, "and this", [][]byte{big})
			if !errors.Is(err, ErrQueueFull) {
				t.Errorf("fourth 17 MB image: %v; want ErrQueueFull", err)
			}
			if q := a.Queued(chatID); len(q) != 3 {
				t.Errorf("queued %d; want 3", len(q))
			}
		})
	})
}

// Editing a queued message's text, or queueing one without images, keeps the texts and leaves the
// queue's images as they are kept: only a change of images rewrites them.
func TestAQueueWhoseTextsAloneChangedDoesNotRewriteItsImages(t *testing.T) {
	var counted *countingStore
	cfg := func(c *Config) {
		counted = &countingStore{Store: c.Store}
		c.Store = counted
	}
	whileWaiting(t, cfg, func(a *Agent, chatID string) {
		if _, err := a.SendImages(context.Background(), chatID, store.Chat{}, "look", [][]byte{tinyPNG(t)}); err != nil {
			t.Fatal(err)
		}
		if counted.imageWrites != 1 {
			t.Fatalf("images written %d times for one message with images; want once", counted.imageWrites)
		}
		if err := a.EditQueued(context.Background(), chatID, 0, "look closer"); err != nil {
			t.Fatal(err)
		}
		if _, err := a.Send(context.Background(), chatID, "and no picture"); err != nil {
			t.Fatal(err)
		}
		if counted.imageWrites != 1 {
			t.Errorf("images written %d times; want once: the edits changed texts alone", counted.imageWrites)
		}
		if q := a.Queued(chatID); len(q) != 2 || q[0] != "look closer" {
			t.Errorf("queued %q; want the edited text and the new one", q)
		}
	})
}
