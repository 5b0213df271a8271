package store

import (
	"errors"
	"testing"
	"time"
)

// stored reads the saved message back from disk; a message not written yet reads as empty.
func stored(t *testing.T, db *DB, cp *MessageSaver) Message {
	t.Helper()
	m, err := db.Message(cp.Message().ChatID, cp.ID())
	if errors.Is(err, ErrNotFound) {
		return Message{}
	}
	if err != nil {
		t.Fatal(err)
	}
	return m
}

func TestMessageSaverSavesAtMostOncePerIntervalWhileStreaming(t *testing.T) {
	clock := newTestClock()
	db, _ := openTestDB(t, clock)
	c := mustChat(t, db, Chat{})
	cp := mustSaver(t, db, c.ID, Message{})
	if cp.ID() == "" {
		t.Fatal("the message has no id before its first save")
	}
	if _, err := db.Message(c.ID, cp.ID()); !errors.Is(err, ErrNotFound) {
		t.Fatalf("the message was written before its first save (%v): its first text would wait for the disk", err)
	}

	steps := []struct {
		advance   time.Duration
		delta     string
		wantSaved string
	}{
		{0, "a", ""},
		{400 * time.Millisecond, "b", ""},
		{500 * time.Millisecond, "c", ""},     // 900ms since the last save
		{100 * time.Millisecond, "d", "abcd"}, // 1s: saved
		{999 * time.Millisecond, "e", "abcd"}, // not yet
		{time.Millisecond, "f", "abcdef"},     // 1s again
		{10 * time.Second, "g", "abcdefg"},    // a long pause: the next delta saves
	}
	for i, s := range steps {
		clock.Advance(s.advance)
		if err := cp.AddText(s.delta); err != nil {
			t.Fatal(err)
		}
		if got := stored(t, db, cp).Content; got != s.wantSaved {
			t.Errorf("step %d: saved %q, want %q", i, got, s.wantSaved)
		}
	}
	if cp.Message().Content != "abcdefg" {
		t.Errorf("in memory = %q", cp.Message().Content)
	}
}

// thinkingStream is an answer of run r1 in a new chat whose model began to think, on a clock
// the test moves.
func thinkingStream(t *testing.T) (*testClock, *DB, *MessageSaver, Chat) {
	t.Helper()
	clock := newTestClock()
	db, _ := openTestDB(t, clock)
	c := mustChat(t, db, Chat{})
	cp, _ := db.NewMessageSaver(c.ID, Message{RunID: "r1"})
	_ = cp.AddThinking("let me ")
	return clock, db, cp, c
}

func TestMessageSaverSavesAtToolCallBoundaryAndAtTheEnd(t *testing.T) {
	clock, db, cp, c := thinkingStream(t)
	clock.Advance(300 * time.Millisecond)
	_ = cp.AddThinking("think")
	clock.Advance(200 * time.Millisecond)
	_ = cp.AddText("Writing the file.")
	if got := stored(t, db, cp); got.ID != "" {
		t.Fatalf("saved before the interval: %+v", got)
	}
	if err := cp.AddToolCalls(ToolCall{ID: "c1", Name: "write_file", Args: []byte(`{"path":"a"}`)}); err != nil {
		t.Fatal(err)
	}
	got := stored(t, db, cp)
	if len(got.ToolCalls) != 1 || got.Content != "Writing the file." || got.Thinking != "let me think" {
		t.Errorf("after the boundary: %+v", got)
	}
	if got.ThinkingMs != 500 || got.RunID != "r1" || got.Complete {
		t.Errorf("thinkingMs %d runID %q complete %v", got.ThinkingMs, got.RunID, got.Complete)
	}

	if err := cp.Finish("stop", &Usage{PromptTokens: 10, EvalTokens: 5}); err != nil {
		t.Fatal(err)
	}
	got = stored(t, db, cp)
	if !got.Complete || got.DoneReason != "stop" || got.Usage == nil || got.Usage.EvalTokens != 5 {
		t.Errorf("after Finish: %+v", got)
	}
	if chat, _ := db.Chat(c.ID); chat.MessageCount != 1 {
		t.Errorf("saves changed the message count: %d", chat.MessageCount)
	}
}

// A stream stopped (or cut) while the model still thinks keeps how long it thought so far, as
// does every save while it thinks: the chat opened again says "Thought for 23s", not 0.
func TestMessageSaverKeepsTheThinkingTimeOfAStreamStoppedWhileItThinks(t *testing.T) {
	clock, db, cp, _ := thinkingStream(t)
	clock.Advance(2 * time.Second)
	_ = cp.AddThinking("think") // saved: an interval old
	if got := stored(t, db, cp); got.ThinkingMs != 2000 {
		t.Errorf("a save while it thinks keeps %d ms of thinking, want 2000", got.ThinkingMs)
	}
	clock.Advance(21 * time.Second)
	_ = cp.AddThinking(" more")
	if err := cp.Flush(); err != nil { // the run stopped
		t.Fatal(err)
	}
	if got := stored(t, db, cp); got.ThinkingMs != 23000 || got.Thinking != "let me think more" {
		t.Errorf("stopped while thinking: %d ms of %q, want 23000 ms of all of it", got.ThinkingMs, got.Thinking)
	}
}

func TestMessageSaverFlushSavesWhatStreamedBeforeAFailure(t *testing.T) {
	db, _ := openTestDB(t, newTestClock())
	c := mustChat(t, db, Chat{})
	cp, _ := db.NewMessageSaver(c.ID, Message{})
	_ = cp.AddText("partial")
	cp.Edit(func(m *Message) { m.DoneReason = "error" })
	if err := cp.Flush(); err != nil {
		t.Fatal(err)
	}
	if got := stored(t, db, cp); got.Content != "partial" || got.Complete || got.DoneReason != "error" {
		t.Errorf("after Flush: %+v", got)
	}
}

func TestAStreamingMessageKeepsItsPlaceWhenAnotherIsAppendedBeforeItsFirstSave(t *testing.T) {
	db, _ := openTestDB(t, newTestClock())
	c := mustChat(t, db, Chat{})
	if _, err := db.AppendMessage(c.ID, Message{Role: RoleUser, Content: "question"}); err != nil {
		t.Fatal(err)
	}
	cp := mustSaver(t, db, c.ID, Message{})
	later, err := db.AppendMessage(c.ID, Message{Role: RoleUser, Content: "sent while it streams"})
	if err != nil {
		t.Fatal(err)
	}
	if later.ID == cp.ID() {
		t.Fatalf("a message appended took the streaming message's id %s", cp.ID())
	}
	_ = cp.AddText("answer")
	if err := cp.Finish("stop", nil); err != nil {
		t.Fatal(err)
	}
	msgs, err := db.Messages(c.ID)
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, m := range msgs {
		got = append(got, m.Content)
	}
	if len(got) != 3 || got[0] != "question" || got[1] != "answer" || got[2] != "sent while it streams" {
		t.Errorf("messages = %q, want the answer where it started, before the message sent after it", got)
	}
	if chat, _ := db.Chat(c.ID); chat.MessageCount != 3 {
		t.Errorf("message count %d, want 3", chat.MessageCount)
	}
}

func TestAStreamingMessagesIdIsNotGivenAgainAfterTheFileIsOpenedAnew(t *testing.T) {
	clock := newTestClock()
	db, path := openTestDB(t, clock)
	c := mustChat(t, db, Chat{})
	cp := mustSaver(t, db, c.ID, Message{})
	_ = cp.AddText("answer")
	if err := cp.Finish("stop", nil); err != nil {
		t.Fatal(err)
	}
	if err := db.Close(); err != nil {
		t.Fatal(err)
	}
	db = reopen(t, path, Options{Now: clock.Now})
	next, err := db.AppendMessage(c.ID, Message{Role: RoleUser, Content: "next"})
	if err != nil {
		t.Fatal(err)
	}
	if next.ID == cp.ID() {
		t.Fatalf("the next message took the id %s of the answer before it", next.ID)
	}
	if msgs, _ := db.Messages(c.ID); len(msgs) != 2 || msgs[0].Content != "answer" {
		t.Errorf("messages = %+v", msgs)
	}
}
