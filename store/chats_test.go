package store

import (
	"errors"
	"strings"
	"testing"
	"time"
)

func TestListChatsIsNewestFirstWithTitleAndCount(t *testing.T) {
	clock := newTestClock()
	db, _ := openTestDB(t, clock)
	first := mustChat(t, db, Chat{Model: "qwen3", Workspace: "/w"})
	clock.Advance(time.Second)
	second := mustChat(t, db, Chat{Title: "named"})
	clock.Advance(time.Second)
	mustAppend(t, db, first.ID, Message{Role: RoleUser, Content: "  Build a snake game\nin Go"})
	mustAppend(t, db, first.ID, Message{Role: RoleAssistant, Content: "Sure."})

	chats, err := db.ListChats()
	if err != nil {
		t.Fatal(err)
	}
	if len(chats) != 2 || chats[0].ID != first.ID || chats[1].ID != second.ID {
		t.Fatalf("order = %+v, want the chat with the newest message first", chats)
	}
	got := chats[0]
	if got.Title != "Build a snake game" || got.MessageCount != 2 || got.Model != "qwen3" || got.Workspace != "/w" {
		t.Errorf("summary = %+v", got)
	}
	if !got.UpdatedAt.Equal(clock.Now()) || !got.CreatedAt.Equal(first.CreatedAt) {
		t.Errorf("times = created %v updated %v", got.CreatedAt, got.UpdatedAt)
	}
	if chats[1].Title != "named" {
		t.Errorf("a chat's own title was replaced: %q", chats[1].Title)
	}
}

func TestTitleFromFirstUserMessage(t *testing.T) {
	long := strings.Repeat("é", 100)
	for _, tc := range []struct{ in, want string }{
		{"hello", "hello"},
		{"  first line \nsecond", "first line"},
		{long, strings.Repeat("é", titleRunes-1) + "…"},
	} {
		if got := titleFrom(tc.in); got != tc.want {
			t.Errorf("titleFrom(%q) = %q, want %q", tc.in, got, tc.want)
		}
	}
}

func TestDeleteChatRemovesItsMessagesRecordsAndRuns(t *testing.T) {
	db, _ := openTestDB(t, nil)
	keep := mustChat(t, db, Chat{})
	gone := mustChat(t, db, Chat{})
	mustAppend(t, db, gone.ID, Message{Role: RoleUser})
	run, _ := db.StartRun(Run{ChatID: gone.ID})
	_ = db.PutToolCall(ToolCallRecord{ID: "x", ChatID: gone.ID, Pending: true})
	if err := db.DeleteChat(gone.ID); err != nil {
		t.Fatal(err)
	}
	if chats, _ := db.ListChats(); len(chats) != 1 || chats[0].ID != keep.ID {
		t.Errorf("chats = %+v", chats)
	}
	if _, err := db.Run(run.ID); !errors.Is(err, ErrNotFound) {
		t.Errorf("the run survived: %v", err)
	}
	if live, _ := db.LiveRuns(); len(live) != 0 {
		t.Errorf("a deleted chat's run is still live: %+v", live)
	}
	if err := db.Check(); err != nil {
		t.Errorf("Check: %v", err)
	}
}

func TestRenameAndUpdateChatKeepCountsAndIndex(t *testing.T) {
	clock := newTestClock()
	db, _ := openTestDB(t, clock)
	a := mustChat(t, db, Chat{})
	mustAppend(t, db, a.ID, Message{Role: RoleUser, Content: "x"})
	clock.Advance(time.Second)
	b := mustChat(t, db, Chat{})
	clock.Advance(time.Second)
	got, err := db.UpdateChat(a.ID, func(c *Chat) { c.Title, c.Model, c.MessageCount = "renamed", "llama", 99 })
	if err != nil {
		t.Fatal(err)
	}
	if got.Title != "renamed" || got.Model != "llama" || got.MessageCount != 1 {
		t.Errorf("updated = %+v", got)
	}
	chats, _ := db.ListChats()
	if len(chats) != 2 || chats[0].ID != a.ID || chats[1].ID != b.ID {
		t.Errorf("list after update = %+v", chats)
	}
	if r, _ := db.RenameChat(b.ID, "b"); r.Title != "b" {
		t.Errorf("rename = %+v", r)
	}
}
