package store

import (
	"errors"
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"
)

func TestMessagesComeBackInAppendOrderPastByteBoundaries(t *testing.T) {
	db, _ := openTestDB(t, nil)
	c := mustChat(t, db, Chat{})
	const n = 300 // past 255 and 256: only big-endian keys keep numeric order
	var ids []string
	for i := range n {
		ids = append(ids, mustAppend(t, db, c.ID, Message{Role: RoleUser, Content: fmt.Sprint(i)}).ID)
	}
	msgs, err := db.Messages(c.ID)
	if err != nil {
		t.Fatal(err)
	}
	if len(msgs) != n {
		t.Fatalf("got %d messages, want %d", len(msgs), n)
	}
	seen := map[string]bool{}
	for i, m := range msgs {
		if m.Content != fmt.Sprint(i) || m.ID != ids[i] || m.ChatID != c.ID {
			t.Fatalf("message %d = %+v", i, m)
		}
		if seen[m.ID] {
			t.Fatalf("duplicate id %s", m.ID)
		}
		seen[m.ID] = true
	}
	if got, _ := db.Chat(c.ID); got.MessageCount != n {
		t.Errorf("MessageCount = %d, want %d", got.MessageCount, n)
	}
}

func TestRecentMessagesAreTheLastInOrder(t *testing.T) {
	db, _ := openTestDB(t, nil)
	c := mustChat(t, db, Chat{})
	for i := range 5 {
		mustAppend(t, db, c.ID, Message{Role: RoleUser, Content: fmt.Sprint(i)})
	}
	for _, tc := range []struct {
		n    int
		want string
	}{{0, ""}, {2, "34"}, {5, "01234"}, {9, "01234"}} {
		msgs, err := db.RecentMessages(c.ID, tc.n)
		if err != nil {
			t.Fatal(err)
		}
		var got string
		for _, m := range msgs {
			got += m.Content
		}
		if got != tc.want {
			t.Errorf("RecentMessages(%d) = %q, want %q", tc.n, got, tc.want)
		}
	}
}

func TestUpdateMessageReplacesInPlace(t *testing.T) {
	clock := newTestClock()
	db, _ := openTestDB(t, clock)
	c := mustChat(t, db, Chat{})
	m := mustAppend(t, db, c.ID, Message{Role: RoleAssistant, Content: "Hel"})
	after := mustAppend(t, db, c.ID, Message{Role: RoleUser, Content: "next"})
	clock.Advance(time.Minute)
	m.Content, m.Complete = "Hello", true
	if err := db.UpdateMessage(c.ID, m); err != nil {
		t.Fatal(err)
	}
	msgs, _ := db.Messages(c.ID)
	if len(msgs) != 2 || msgs[0].Content != "Hello" || !msgs[0].Complete || msgs[1].ID != after.ID {
		t.Fatalf("messages = %+v", msgs)
	}
	if !msgs[1].Complete {
		t.Error("a user message was stored as still streaming")
	}
	if !msgs[0].CreatedAt.Equal(m.CreatedAt) || !msgs[0].UpdatedAt.Equal(clock.Now()) {
		t.Errorf("created %v updated %v", msgs[0].CreatedAt, msgs[0].UpdatedAt)
	}
}

func TestMissingThingsAreNotFound(t *testing.T) {
	db, _ := openTestDB(t, nil)
	c := mustChat(t, db, Chat{})
	other := mustChat(t, db, Chat{})
	otherMsg := mustAppend(t, db, other.ID, Message{Role: RoleUser})
	for name, err := range map[string]error{
		"chat":                 func() error { _, err := db.Chat("nope"); return err }(),
		"messages of a chat":   func() error { _, err := db.Messages("nope"); return err }(),
		"append":               func() error { _, err := db.AppendMessage("nope", Message{}); return err }(),
		"update unknown":       db.UpdateMessage(c.ID, Message{ID: c.ID + "-m9"}),
		"other chat's message": db.UpdateMessage(c.ID, otherMsg),
		"malformed id":         db.UpdateMessage(c.ID, Message{ID: "x"}),
		"tool call":            func() error { _, err := db.CompleteToolCall(c.ID, "nope", ToolResult{}); return err }(),
		"run":                  func() error { _, err := db.Run("nope"); return err }(),
		"delete":               db.DeleteChat("nope"),
	} {
		if !errors.Is(err, ErrNotFound) {
			t.Errorf("%s: err = %v, want ErrNotFound", name, err)
		}
	}
	_, err := db.Chat("nope")
	if !strings.Contains(err.Error(), "chats list") {
		t.Errorf("a missing chat does not say how to find ids: %v", err)
	}
}

func TestConcurrentAppendsKeepEveryMessageOnce(t *testing.T) {
	db, _ := openTestDB(t, nil)
	c := mustChat(t, db, Chat{})
	const writers, each = 4, 25
	var wg sync.WaitGroup
	for w := range writers {
		wg.Go(func() {
			for i := range each {
				if _, err := db.AppendMessage(c.ID, Message{Role: RoleUser, Content: fmt.Sprint(w, "/", i)}); err != nil {
					t.Error(err)
				}
			}
		})
	}
	wg.Wait()
	msgs, err := db.Messages(c.ID)
	if err != nil {
		t.Fatal(err)
	}
	contents := map[string]bool{}
	for _, m := range msgs {
		contents[m.Content] = true
	}
	if len(msgs) != writers*each || len(contents) != writers*each {
		t.Errorf("%d messages, %d distinct; want %d", len(msgs), len(contents), writers*each)
	}
	if got, _ := db.Chat(c.ID); got.MessageCount != writers*each {
		t.Errorf("MessageCount = %d", got.MessageCount)
	}
}
