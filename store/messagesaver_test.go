package store

import (
	"testing"
	"time"
)

// stored reads the saved message back from disk.
func stored(t *testing.T, db *DB, cp *MessageSaver) Message {
	t.Helper()
	m, err := db.Message(cp.Message().ChatID, cp.ID())
	if err != nil {
		t.Fatal(err)
	}
	return m
}

func TestMessageSaverSavesAtMostOncePerIntervalWhileStreaming(t *testing.T) {
	clock := newTestClock()
	db, _ := openTestDB(t, clock)
	c := mustChat(t, db, Chat{})
	cp, err := db.NewMessageSaver(c.ID, Message{})
	if err != nil {
		t.Fatal(err)
	}
	if m := stored(t, db, cp); m.Role != RoleAssistant || m.Complete {
		t.Fatalf("the message is not on disk, streaming, before the first token: %+v", m)
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
	if got := stored(t, db, cp); got.Thinking != "" || got.Content != "" {
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
