package agentloop

import (
	"bytes"
	"context"
	"errors"
	"os"
	"sync"
	"testing"

	"prototyper/events"
	"prototyper/model"
	"prototyper/store"
)

// deltaModel streams its deltas one by one, then ends its answer, or waits for the request to
// be cancelled when hang is set.
type deltaModel struct {
	deltas   []model.Delta
	hang     bool
	streamed chan struct{} // closed once every delta went out
}

func (m *deltaModel) ContextLength(context.Context, string) (int, error) { return 0, nil }

func (m *deltaModel) Chat(ctx context.Context, _ model.Request, fn model.DeltaFunc) (model.Turn, error) {
	var t model.Turn
	for _, d := range m.deltas {
		if err := fn(d); err != nil {
			return t, err
		}
		t.Content += d.Content
	}
	close(m.streamed)
	if m.hang {
		<-ctx.Done()
		return t, ctx.Err()
	}
	t.DoneReason = "stop"
	return t, nil
}

func journalBytes(t *testing.T, db *store.DB) []byte {
	t.Helper()
	data, err := os.ReadFile(store.StreamJournalPath(db.Path()))
	if err != nil && !errors.Is(err, os.ErrNotExist) {
		t.Fatal(err)
	}
	return data
}

// What the window is told of an answer is in the stream journal already, so that text it
// painted survives a kill -9 that comes before the next save.
func TestEveryDeltaIsJournaledBeforeItIsShown(t *testing.T) {
	m := &deltaModel{streamed: make(chan struct{}), deltas: []model.Delta{{Thinking: "a number and a button"},
		{Content: "The button "}, {Content: "counts how "}, {Content: "many times."}}}
	a, db, rec := fakeHarness(t, m, nil)
	var mu sync.Mutex
	var missing []string
	rec.react = func(e events.Event) {
		if e.Type != events.TextDelta && e.Type != events.ThinkingDelta {
			return
		}
		if !bytes.Contains(journalBytes(t, db), []byte(e.Text)) {
			mu.Lock()
			missing = append(missing, e.Text)
			mu.Unlock()
		}
	}
	chat, err := db.CreateChat(store.Chat{Title: "t"})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := a.Send(context.Background(), chat.ID, "make a counter"); err != nil {
		t.Fatal(err)
	}
	rec.waitFor(t, "the run's end", finished(1))
	mu.Lock()
	defer mu.Unlock()
	if len(missing) > 0 {
		t.Errorf("shown before they were journaled: %q", missing)
	}
	if n := len(ofType(rec.events(), events.TextDelta)); n == 0 {
		t.Fatal("no text was shown: the test proves nothing")
	}
	if data := journalBytes(t, db); len(data) != 0 {
		t.Errorf("the journal holds %d bytes once the answer is finished, want none", len(data))
	}
}

// A Stop saves the answer's end: the journal no longer keeps it.
func TestAStoppedAnswerLeavesNothingInTheJournal(t *testing.T) {
	m := &deltaModel{hang: true, streamed: make(chan struct{}), deltas: []model.Delta{{Content: "The button counts"}}}
	a, db, rec := fakeHarness(t, m, nil)
	chat, err := db.CreateChat(store.Chat{Title: "t"})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := a.Send(context.Background(), chat.ID, "make a counter"); err != nil {
		t.Fatal(err)
	}
	<-m.streamed
	if len(journalBytes(t, db)) == 0 {
		t.Fatal("nothing journaled while the answer streams")
	}
	if err := a.Stop(chat.ID); err != nil {
		t.Fatal(err)
	}
	rec.waitFor(t, "the run's end", finished(1))
	if data := journalBytes(t, db); len(data) != 0 {
		t.Errorf("the journal holds %d bytes after the Stop, want none", len(data))
	}
	msgs, err := db.Messages(chat.ID)
	if err != nil {
		t.Fatal(err)
	}
	if last := msgs[len(msgs)-1]; last.Content != "The button counts" || last.DoneReason != events.StopAborted {
		t.Errorf("the stopped answer reads %q (%q)", last.Content, last.DoneReason)
	}
}
