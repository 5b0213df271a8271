package store

import (
	"encoding/binary"
	"errors"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	bolt "go.etcd.io/bbolt"
)

// reopenAfterCrash closes db the way a killed process leaves it, with its savers unended, and
// opens the file again on the same clock.
func reopenAfterCrash(t *testing.T, db *DB, path string, clock *testClock) *DB {
	t.Helper()
	if err := db.Close(); err != nil {
		t.Fatal(err)
	}
	db, err := Open(path, Options{Now: clock.Now})
	if err != nil {
		t.Fatalf("Open after the crash: %v", err)
	}
	t.Cleanup(func() { _ = db.Close() })
	return db
}

func mustText(t *testing.T, cp *MessageSaver, deltas ...string) {
	t.Helper()
	for _, d := range deltas {
		if err := cp.AddText(d); err != nil {
			t.Fatal(err)
		}
	}
}

func wantNoJournal(t *testing.T, path string) {
	t.Helper()
	if _, err := os.Stat(StreamJournalPath(path)); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("the stream journal is still there after Open (%v)", err)
	}
}

func TestTextStreamedAfterTheLastSaveComesBackAtOpen(t *testing.T) {
	clock := newTestClock()
	db, path := openTestDB(t, clock)
	c := mustChat(t, db, Chat{})
	cp := mustSaver(t, db, c.ID, Message{RunID: "r1"})
	_ = cp.AddThinking("first, ")
	mustText(t, cp, "The counter ", "starts at zero")
	clock.Advance(time.Second)
	mustText(t, cp, ", and the button") // saved: an interval old
	if got := stored(t, db, cp).Content; got != "The counter starts at zero, and the button" {
		t.Fatalf("saved %q before the crash", got)
	}
	mustText(t, cp, " counts how", " many times")

	db = reopenAfterCrash(t, db, path, clock)
	got, err := db.Message(c.ID, cp.ID())
	if err != nil {
		t.Fatal(err)
	}
	if want := "The counter starts at zero, and the button counts how many times"; got.Content != want {
		t.Errorf("after the crash the message holds %q, want %q", got.Content, want)
	}
	if got.Thinking != "first, " || got.Complete || got.RunID != "r1" {
		t.Errorf("after the crash: thinking %q complete %v run %q", got.Thinking, got.Complete, got.RunID)
	}
	wantNoJournal(t, path)
}

func TestAMessageNeverSavedComesBackAtOpen(t *testing.T) {
	clock := newTestClock()
	db, path := openTestDB(t, clock)
	c := mustChat(t, db, Chat{})
	mustAppend(t, db, c.ID, Message{Role: RoleUser, Content: "make a counter"})
	cp := mustSaver(t, db, c.ID, Message{RunID: "r1"})
	created := cp.Message().CreatedAt
	later := mustAppend(t, db, c.ID, Message{Role: RoleUser, Content: "sent while it streams"})
	_ = cp.AddThinking("a button and a number")
	mustText(t, cp, "Here is ", "the counter.")
	if got := stored(t, db, cp); got.ID != "" {
		t.Fatalf("the message was saved before the crash: %+v", got)
	}

	clock.Advance(time.Minute)
	db = reopenAfterCrash(t, db, path, clock)
	msgs, err := db.Messages(c.ID)
	if err != nil {
		t.Fatal(err)
	}
	if len(msgs) != 3 || msgs[1].ID != cp.ID() || msgs[2].ID != later.ID {
		t.Fatalf("messages after the crash: %+v", msgs)
	}
	m := msgs[1]
	if m.Role != RoleAssistant || m.Content != "Here is the counter." || m.Thinking != "a button and a number" ||
		m.RunID != "r1" || !m.CreatedAt.Equal(created) || m.Complete {
		t.Errorf("the message never saved came back as %+v", m)
	}
	if chat, _ := db.Chat(c.ID); chat.MessageCount != 3 {
		t.Errorf("message count %d, want 3", chat.MessageCount)
	}
	if hits, err := db.SearchChats("counter", 10); err != nil || len(hits) != 1 {
		t.Errorf("search for its text finds %v (%v): the message is not indexed", hits, err)
	}
	next := mustAppend(t, db, c.ID, Message{Role: RoleUser, Content: "next"})
	if next.ID == cp.ID() || next.ID == later.ID {
		t.Errorf("the next message took the id %s", next.ID)
	}
	wantNoJournal(t, path)
}

// streamUnsaved streams deltas into a new chat's answer that are never saved (the clock does
// not move) and closes db as a kill leaves it; it returns the message's chat and id.
func streamUnsaved(t *testing.T, deltas ...string) (path string, clock *testClock, chatID, msgID string) {
	t.Helper()
	clock = newTestClock()
	db, path := openTestDB(t, clock)
	c := mustChat(t, db, Chat{})
	cp := mustSaver(t, db, c.ID, Message{})
	mustText(t, cp, deltas...)
	if err := db.Close(); err != nil {
		t.Fatal(err)
	}
	return path, clock, c.ID, cp.ID()
}

func openAgain(t *testing.T, path string, clock *testClock) *DB {
	t.Helper()
	db, err := Open(path, Options{Now: clock.Now})
	if err != nil {
		t.Fatalf("Open: %v", err)
	}
	t.Cleanup(func() { _ = db.Close() })
	return db
}

func TestATornLastRecordIsDropped(t *testing.T) {
	for _, tc := range []struct {
		name string
		tear func(b []byte, last int) []byte // last: where the last record starts
		want string
	}{
		{"cut in its delta", func(b []byte, _ int) []byte { return b[:len(b)-2] }, "abcdef"},
		{"cut in its header", func(b []byte, last int) []byte { return b[:last+3] }, "abcdef"},
		{"scribbled over", func(b []byte, last int) []byte { b[len(b)-1] ^= 0xff; return b }, "abcdef"},
		{"garbage after it", func(b []byte, _ int) []byte { return append(b, "\x07\x00\x00\x00garbage!"...) }, "abcdefghi"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			path, clock, chatID, msgID := streamUnsaved(t, "abc", "def", "ghi")
			jp := StreamJournalPath(path)
			data, err := os.ReadFile(jp)
			if err != nil {
				t.Fatal(err)
			}
			last := 0
			for at := 0; at < len(data); at += recordHeader + int(binary.LittleEndian.Uint32(data[at:])) {
				last = at
			}
			if err := os.WriteFile(jp, tc.tear(data, last), 0o600); err != nil {
				t.Fatal(err)
			}
			db := openAgain(t, path, clock)
			m, err := db.Message(chatID, msgID)
			if err != nil {
				t.Fatal(err)
			}
			if m.Content != tc.want {
				t.Errorf("content %q, want %q", m.Content, tc.want)
			}
			wantNoJournal(t, path)
		})
	}
}

// A journal that does not fit the database (garbage, records of a chat gone, of a message
// complete already, of a user's message, deltas that leave a gap) changes nothing it must not,
// stops no Open and is removed.
func TestAJournalThatDoesNotFitChangesNothingAndIsRemoved(t *testing.T) {
	clock := newTestClock()
	db, path := openTestDB(t, clock)
	c := mustChat(t, db, Chat{})
	user := mustAppend(t, db, c.ID, Message{Role: RoleUser, Content: "hi"})
	done, _ := db.NewMessageSaver(c.ID, Message{})
	mustText(t, done, "complete")
	if err := done.Finish("stop", nil); err != nil {
		t.Fatal(err)
	}
	stopped, _ := db.NewMessageSaver(c.ID, Message{})
	mustText(t, stopped, "stopped")
	stopped.Edit(func(m *Message) { m.DoneReason = "aborted" })
	if err := stopped.Close(); err != nil {
		t.Fatal(err)
	}
	gap, _ := db.NewMessageSaver(c.ID, Message{})
	mustText(t, gap, "saved")
	if err := gap.Close(); err != nil {
		t.Fatal(err)
	}
	before, _ := db.Messages(c.ID)
	if err := db.Close(); err != nil {
		t.Fatal(err)
	}

	j := &streamJournal{path: StreamJournalPath(path)}
	head := streamHead{Role: RoleAssistant, CreatedAt: clock.Now()}
	j.head("gone", "gone-m1", head)
	j.delta(recordText, "gone", "gone-m1", 0, "of a chat deleted")
	j.delta(recordText, c.ID, done.ID(), len("complete"), " and more")
	j.delta(recordText, c.ID, stopped.ID(), len("stopped"), " after the Stop")
	j.delta(recordText, c.ID, user.ID, len("hi"), " there")
	j.delta(recordText, c.ID, gap.ID(), len("saved")+3, "past a gap")
	j.delta(recordText, c.ID, c.ID+"-mx", 0, "not an id")
	j.head(c.ID, c.ID+"-m99", streamHead{Role: RoleUser})
	j.delta(recordText, c.ID, c.ID+"-m99", 0, "a user's message made up")
	_ = j.close()

	db = openAgain(t, path, clock)
	after, err := db.Messages(c.ID)
	if err != nil {
		t.Fatal(err)
	}
	if len(after) != len(before) {
		t.Fatalf("%d messages after, %d before", len(after), len(before))
	}
	for i := range before {
		if after[i].Content != before[i].Content || after[i].DoneReason != before[i].DoneReason {
			t.Errorf("message %s changed from %q to %q", before[i].ID, before[i].Content, after[i].Content)
		}
	}
	if _, err := db.Chat("gone"); !errors.Is(err, ErrNotFound) {
		t.Errorf("a chat was made up for records of a chat gone: %v", err)
	}
	wantNoJournal(t, path)
	if err := db.Close(); err != nil {
		t.Fatal(err)
	}

	if err := os.WriteFile(StreamJournalPath(path), []byte("not a journal at all, not even framed"), 0o600); err != nil {
		t.Fatal(err)
	}
	db = openAgain(t, path, clock)
	if again, err := db.Messages(c.ID); err != nil || len(again) != len(before) {
		t.Errorf("after a garbage journal: %d messages (%v)", len(again), err)
	}
	wantNoJournal(t, path)
}

func TestTwoChatsStreamingAtOnceBothComeBack(t *testing.T) {
	clock := newTestClock()
	db, path := openTestDB(t, clock)
	const deltas = 300
	want := map[string]string{}
	var savers []*MessageSaver
	for range 2 {
		c := mustChat(t, db, Chat{})
		cp := mustSaver(t, db, c.ID, Message{})
		savers = append(savers, cp)
	}
	var wg sync.WaitGroup
	for i, cp := range savers {
		var text strings.Builder
		for n := range deltas {
			fmt.Fprintf(&text, "chat%d-%d ", i, n)
		}
		want[cp.ID()] = text.String()
		wg.Add(1)
		go func() {
			defer wg.Done()
			for n := range deltas {
				if err := cp.AddText(fmt.Sprintf("chat%d-%d ", i, n)); err != nil {
					t.Error(err)
					return
				}
			}
		}()
	}
	wg.Wait()
	// the clock moves between the two streams' saves: some of each text is saved, the rest
	// only journaled
	clock.Advance(time.Second)
	_ = savers[0].AddText("")
	db = reopenAfterCrash(t, db, path, clock)
	for _, cp := range savers {
		m, err := db.Message(cp.Message().ChatID, cp.ID())
		if err != nil {
			t.Fatal(err)
		}
		if m.Content != want[cp.ID()] {
			t.Errorf("message %s holds %d bytes after the crash, want all %d", cp.ID(), len(m.Content), len(want[cp.ID()]))
		}
	}
}

func TestTheJournalIsEmptiedOnceNothingStreams(t *testing.T) {
	clock := newTestClock()
	db, path := openTestDB(t, clock)
	size := func() int64 {
		t.Helper()
		info, err := os.Stat(StreamJournalPath(path))
		if err != nil {
			t.Fatal(err)
		}
		return info.Size()
	}
	a, _ := db.NewMessageSaver(mustChat(t, db, Chat{}).ID, Message{})
	b, _ := db.NewMessageSaver(mustChat(t, db, Chat{}).ID, Message{})
	mustText(t, a, strings.Repeat("a", 1000))
	mustText(t, b, strings.Repeat("b", 1000))
	if err := a.Finish("stop", nil); err != nil {
		t.Fatal(err)
	}
	if size() < 2000 {
		t.Fatalf("the journal holds %d bytes while b streams", size())
	}
	b.Edit(func(m *Message) { m.DoneReason = "aborted" }) // a Stop
	if err := b.Close(); err != nil {
		t.Fatal(err)
	}
	if n := size(); n != 0 {
		t.Errorf("the journal holds %d bytes once nothing streams, want 0", n)
	}
	c, _ := db.NewMessageSaver(mustChat(t, db, Chat{}).ID, Message{})
	mustText(t, c, "again")
	if err := c.Finish("stop", nil); err != nil {
		t.Fatal(err)
	}
	if n := size(); n != 0 {
		t.Errorf("the journal holds %d bytes after the next stream ended, want 0", n)
	}
	if err := db.Close(); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(StreamJournalPath(path)); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("the journal outlived a Close with nothing streaming (%v)", err)
	}
}

// Streams that overlap for ever never leave the journal empty: it stops taking records at its
// limit, and takes them again once it is emptied.
func TestAFullJournalTakesNoMoreRecordsUntilItIsEmptied(t *testing.T) {
	clock := newTestClock()
	db, path := openTestDB(t, clock)
	db.streams.limit = 4096
	a, _ := db.NewMessageSaver(mustChat(t, db, Chat{}).ID, Message{})
	for range 100 {
		mustText(t, a, strings.Repeat("a", 100))
	}
	info, err := os.Stat(StreamJournalPath(path))
	if err != nil {
		t.Fatal(err)
	}
	if info.Size() > 4096 {
		t.Errorf("the journal grew to %d bytes past its limit", info.Size())
	}
	if err := a.Finish("stop", nil); err != nil {
		t.Fatal(err)
	}
	b, _ := db.NewMessageSaver(mustChat(t, db, Chat{}).ID, Message{})
	mustText(t, b, "journaled again")
	db = reopenAfterCrash(t, db, path, clock)
	if m, err := db.Message(b.Message().ChatID, b.ID()); err != nil || m.Content != "journaled again" {
		t.Errorf("after the journal was emptied, a stream came back as %q (%v)", m.Content, err)
	}
}

// A Stop saves the message's end while another chat streams on: a crash then must not add
// to the stopped message what the journal still holds of it.
func TestAStoppedMessageKeepsTheEndItSaved(t *testing.T) {
	clock := newTestClock()
	db, path := openTestDB(t, clock)
	other, _ := db.NewMessageSaver(mustChat(t, db, Chat{}).ID, Message{})
	mustText(t, other, "streaming on")
	c := mustChat(t, db, Chat{})
	cp, _ := db.NewMessageSaver(c.ID, Message{})
	mustText(t, cp, "cut ", "here")
	cp.Edit(func(m *Message) { m.Content = "cut"; m.DoneReason = "aborted" })
	if err := cp.Close(); err != nil {
		t.Fatal(err)
	}
	db = reopenAfterCrash(t, db, path, clock)
	m, err := db.Message(c.ID, cp.ID())
	if err != nil {
		t.Fatal(err)
	}
	if m.Content != "cut" || m.DoneReason != "aborted" {
		t.Errorf("the stopped message reads %q (%q), want what its Stop saved", m.Content, m.DoneReason)
	}
	if o, _ := db.Message(other.Message().ChatID, other.ID()); o.Content != "streaming on" {
		t.Errorf("the other stream came back as %q", o.Content)
	}
}

// A read-only Open (the command line) neither applies nor removes the journal of the app.
func TestAReadOnlyOpenLeavesTheJournal(t *testing.T) {
	path, clock, chatID, msgID := streamUnsaved(t, "kept for the next writable Open")
	ro, err := Open(path, Options{ReadOnly: true})
	if err != nil {
		t.Fatal(err)
	}
	_ = ro.Close()
	if _, err := os.Stat(StreamJournalPath(path)); err != nil {
		t.Fatalf("a read-only Open touched the journal: %v", err)
	}
	db := openAgain(t, path, clock)
	if m, err := db.Message(chatID, msgID); err != nil || m.Content != "kept for the next writable Open" {
		t.Errorf("after the read-only Open: %q (%v)", m.Content, err)
	}
}

// BenchmarkMessageSaverAddText is the cost of one streamed delta between saves, with the
// stream journal and without it (as the saver was before it), beside a bbolt save per delta
// (what keeping every delta would cost without the journal).
func BenchmarkMessageSaverAddText(b *testing.B) {
	delta := "the button counts "
	for _, bc := range []struct {
		name             string
		journal, saveAll bool
	}{{"journal=false", false, false}, {"journal=true", true, false}, {"saveEveryDelta", false, true}} {
		b.Run(bc.name, func(b *testing.B) {
			clock := newTestClock() // it stands still: no save but where every delta saves
			opts := Options{Now: clock.Now}
			if bc.saveAll {
				opts.SaveInterval = time.Nanosecond
				opts.Now = func() time.Time { clock.Advance(time.Nanosecond); return clock.Now() }
			}
			db, err := Open(filepath.Join(b.TempDir(), "bench.db"), opts)
			if err != nil {
				b.Fatal(err)
			}
			b.Cleanup(func() { _ = db.Close() })
			if !bc.journal {
				db.streams = nil
			} else {
				db.streams.limit = math.MaxInt64 // every delta written, however long the run
			}
			cp := mustSaver(b, db, mustChat(b, db, Chat{}).ID, Message{})
			b.ReportAllocs()
			for b.Loop() {
				if err := cp.AddText(delta); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// A journal past its limit takes no end record: it is emptied then, so that an answer ended
// and regenerated since (put aside as an older version) is not brought back into the history
// shown by the records it had taken before.
func TestAFullJournalBringsBackNoAnswerEndedSince(t *testing.T) {
	clock := newTestClock()
	db, path := openTestDB(t, clock)
	db.streams.limit = 600
	c := mustChat(t, db, Chat{})
	u := mustAppend(t, db, c.ID, Message{Role: RoleUser, Content: "make a counter"})
	other, _ := db.NewMessageSaver(mustChat(t, db, Chat{}).ID, Message{})
	mustText(t, other, "another chat streams")
	a, _ := db.NewMessageSaver(c.ID, Message{})
	mustText(t, a, "first answer")
	mustText(t, other, strings.Repeat("x", 1000)) // past the limit
	if err := a.Finish("stop", nil); err != nil {
		t.Fatal(err)
	}
	if _, err := db.ForkAt(c.ID, a.ID()); err != nil { // regenerated
		t.Fatal(err)
	}
	a2 := mustAppend(t, db, c.ID, Message{Role: RoleAssistant, Content: "second answer", Complete: true})
	db = reopenAfterCrash(t, db, path, clock)
	msgs, _ := db.Messages(c.ID)
	if len(msgs) != 2 || msgs[0].ID != u.ID || msgs[1].ID != a2.ID {
		t.Errorf("the history shown after the kill holds %d messages, want the question and the second answer", len(msgs))
	}
}

// A journal naming a chat whose record the store cannot read is dropped: Open goes on, and
// never calls the file damaged for it.
func TestAJournalTheStoreCannotApplyDoesNotStopOpen(t *testing.T) {
	clock := newTestClock()
	db, path := openTestDB(t, clock)
	c := mustChat(t, db, Chat{})
	a, _ := db.NewMessageSaver(c.ID, Message{})
	mustText(t, a, "unsaved text")
	if err := db.Close(); err != nil {
		t.Fatal(err)
	}
	b, err := bolt.Open(path, 0o600, nil)
	if err != nil {
		t.Fatal(err)
	}
	if err := b.Update(func(tx *bolt.Tx) error { return tx.Bucket(bucketChats).Put([]byte(c.ID), []byte("{not json")) }); err != nil {
		t.Fatal(err)
	}
	b.Close()
	db, err = Open(path, Options{Now: clock.Now})
	if err != nil {
		t.Fatalf("Open with a journal it cannot apply: %v", err)
	}
	db.Close()
	if _, err := os.Stat(StreamJournalPath(path)); !os.IsNotExist(err) {
		t.Errorf("the journal is still there after Open: %v", err)
	}
}
