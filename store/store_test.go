package store

import (
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	bolt "go.etcd.io/bbolt"

	"prototyper/events"
	"prototyper/store/storetest"
)

// testClock is an injectable clock that moves only when told.
type testClock struct {
	mu sync.Mutex
	t  time.Time
}

func newTestClock() *testClock {
	return &testClock{t: time.Date(2025, 1, 2, 3, 4, 5, 0, time.UTC)}
}

func (c *testClock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.t
}

func (c *testClock) Advance(d time.Duration) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.t = c.t.Add(d)
}

// openTestDB opens a fresh database in a temporary folder, closed at the end of the test.
func openTestDB(tb testing.TB, clock *testClock) (*DB, string) {
	tb.Helper()
	path := filepath.Join(tb.TempDir(), "sub", "prototyper.db")
	opts := Options{}
	if clock != nil {
		opts.Now = clock.Now
	}
	db, err := Open(path, opts)
	if err != nil {
		tb.Fatalf("Open: %v", err)
	}
	tb.Cleanup(func() { _ = db.Close() })
	return db, path
}

func mustChat(tb testing.TB, db *DB, c Chat) Chat {
	tb.Helper()
	c, err := db.CreateChat(c)
	if err != nil {
		tb.Fatalf("CreateChat: %v", err)
	}
	return c
}

func mustAppend(tb testing.TB, db *DB, chatID string, m Message) Message {
	tb.Helper()
	m, err := db.AppendMessage(chatID, m)
	if err != nil {
		tb.Fatalf("AppendMessage: %v", err)
	}
	return m
}

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

func TestToolCallIsPendingUntilCompleted(t *testing.T) {
	clock := newTestClock()
	db, _ := openTestDB(t, clock)
	c := mustChat(t, db, Chat{})
	args := json.RawMessage(`{"path":"a.txt"}`)
	waiting := ToolCallRecord{ID: "call_2", ChatID: c.ID, Name: "write_file", Args: args, AwaitingApproval: true}
	running := ToolCallRecord{ID: "call_1", ChatID: c.ID, Name: "read_file", Args: args, Pending: true, StartedAt: clock.Now()}
	for _, r := range []ToolCallRecord{running, waiting} {
		if err := db.PutToolCall(r); err != nil {
			t.Fatal(err)
		}
	}
	clock.Advance(1500 * time.Millisecond)
	done, err := db.CompleteToolCall(c.ID, "call_1", ToolResult{OK: true, Output: "hi", Details: json.RawMessage(`{"bytes":2}`)})
	if err != nil {
		t.Fatal(err)
	}
	if done.Pending || !done.OK || done.Output != "hi" || done.DurationMs != 1500 {
		t.Errorf("completed = %+v", done)
	}
	// The decision on the waiting call, then its execution, replace the same record.
	waiting.AwaitingApproval, waiting.Pending = false, true
	waiting.Approval = &Approval{Decision: DecisionAllow, By: ByUser}
	if err := db.PutToolCall(waiting); err != nil {
		t.Fatal(err)
	}
	recs, err := db.ToolCalls(c.ID)
	if err != nil {
		t.Fatal(err)
	}
	if len(recs) != 2 || recs[0].ID != "call_1" || recs[1].ID != "call_2" {
		t.Fatalf("records = %+v, want call_1 then call_2, once each", recs)
	}
	if !recs[1].Pending || recs[1].Approval == nil || recs[1].Approval.Decision != DecisionAllow {
		t.Errorf("call_2 = %+v", recs[1])
	}
	if string(recs[0].Details) != `{"bytes":2}` {
		t.Errorf("details = %s", recs[0].Details)
	}
	// The user stops the run while call_2 runs: its record says so, read back as stored.
	if _, err := db.CompleteToolCall(c.ID, "call_2", ToolResult{Output: "stopped: by the user", Stopped: true}); err != nil {
		t.Fatal(err)
	}
	if r, err := db.ToolCall(c.ID, "call_2"); err != nil || !r.Stopped || r.OK || r.Pending || recs[0].Stopped {
		t.Errorf("call_2 = %+v, %v; want stopped (and call_1 not)", r, err)
	}
}

func TestReopenMarksLiveRunsInterruptedAndLeavesToolCallsPending(t *testing.T) {
	path := filepath.Join(t.TempDir(), "p.db")
	db, err := Open(path, Options{})
	if err != nil {
		t.Fatal(err)
	}
	c := mustChat(t, db, Chat{})
	streaming, _ := db.StartRun(Run{ChatID: c.ID, Model: "m"})
	if _, err := db.SetRunPhase(streaming.ID, events.PhaseTools); err != nil {
		t.Fatal(err)
	}
	paused, _ := db.StartRun(Run{ChatID: c.ID, Phase: events.PhaseAwaitingApproval, State: json.RawMessage(`{"step":3}`)})
	finished, _ := db.StartRun(Run{ChatID: c.ID})
	if _, err := db.FinishRun(finished.ID, events.StopCompleted, nil); err != nil {
		t.Fatal(err)
	}
	if err := db.PutToolCall(ToolCallRecord{ID: "t1", ChatID: c.ID, RunID: streaming.ID, Pending: true}); err != nil {
		t.Fatal(err)
	}
	if live, _ := db.LiveRuns(); len(live) != 2 {
		t.Fatalf("live runs before the crash = %d, want 2", len(live))
	}
	_ = db.Close() // as if killed: nothing finishes the live runs

	db, err = Open(path, Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	if live, _ := db.LiveRuns(); len(live) != 0 {
		t.Errorf("runs still live after reopening: %+v", live)
	}
	if got := db.Recovered(); len(got) != 2 {
		t.Errorf("Recovered() = %+v, want the two runs that were live", got)
	}
	for _, tc := range []struct {
		id, stop string
		phase    events.Phase
	}{
		{streaming.ID, StopInterrupted, events.PhaseTools},
		{paused.ID, events.StopAwaitingApproval, events.PhaseAwaitingApproval},
		{finished.ID, events.StopCompleted, events.PhaseIdle},
	} {
		r, err := db.Run(tc.id)
		if err != nil {
			t.Fatal(err)
		}
		if r.Live || r.StopReason != tc.stop || r.Phase != tc.phase {
			t.Errorf("run %s = live %v stop %q phase %q, want stop %q phase %q", tc.id, r.Live, r.StopReason, r.Phase, tc.stop, tc.phase)
		}
	}
	if r, _ := db.Run(paused.ID); string(r.State) != `{"step":3}` {
		t.Errorf("a paused run lost its state: %s", r.State)
	}
	if rec, _ := db.ToolCall(c.ID, "t1"); !rec.Pending {
		t.Error("a pending tool record of an interrupted run was completed: nobody knows it finished")
	}
	if runs, _ := db.RunsOf(c.ID); len(runs) != 3 || runs[0].ID != streaming.ID {
		t.Errorf("RunsOf = %+v", runs)
	}
}

func TestSecondOpenReportsAlreadyRunningWithinTwoSeconds(t *testing.T) {
	_, path := openTestDB(t, nil)
	for _, readOnly := range []bool{false, true} {
		t.Run(fmt.Sprintf("readOnly=%v", readOnly), func(t *testing.T) {
			start := time.Now()
			db, err := Open(path, Options{ReadOnly: readOnly})
			elapsed := time.Since(start)
			if err == nil {
				db.Close()
				t.Fatal("a second Open succeeded while the first holds the lock")
			}
			if !errors.Is(err, ErrLocked) {
				t.Fatalf("err = %v, want ErrLocked", err)
			}
			want := "Prototyper is already running (database locked: " + path + "): close it first"
			if !strings.HasPrefix(err.Error(), want) {
				t.Errorf("message = %q, want %q", err, want)
			}
			// The promise to a user who starts a second copy.
			if elapsed > 2*time.Second {
				t.Errorf("took %v to give up, want under 2s", elapsed)
			}
		})
	}
}

func TestReadOnlyOpenOfAMissingFileSaysSo(t *testing.T) {
	path := filepath.Join(t.TempDir(), "none.db")
	_, err := Open(path, Options{ReadOnly: true})
	if !errors.Is(err, ErrNoDatabase) {
		t.Fatalf("err = %v, want ErrNoDatabase", err)
	}
	if _, statErr := os.Stat(path); statErr == nil {
		t.Error("a read-only Open created the file")
	}
}

// A process killed right after creating the file leaves it empty.
func TestAnEmptyFileIsNoDatabaseYetAndOpensForWriting(t *testing.T) {
	path := filepath.Join(t.TempDir(), "empty.db")
	if err := os.WriteFile(path, nil, 0o600); err != nil {
		t.Fatal(err)
	}
	if _, err := Open(path, Options{ReadOnly: true}); !errors.Is(err, ErrNoDatabase) {
		t.Fatalf("read-only: err = %v, want ErrNoDatabase", err)
	}
	db, err := Open(path, Options{})
	if err != nil {
		t.Fatalf("writable: %v", err)
	}
	defer db.Close()
	if _, err := db.CreateChat(Chat{}); err != nil {
		t.Fatal(err)
	}
}

func TestOpenWhereTheFolderCannotBeMadeIsAClearError(t *testing.T) {
	blocker := filepath.Join(t.TempDir(), "file")
	if err := os.WriteFile(blocker, nil, 0o600); err != nil {
		t.Fatal(err)
	}
	_, err := Open(filepath.Join(blocker, "p.db"), Options{})
	if err == nil || !strings.Contains(err.Error(), "--db") {
		t.Fatalf("err = %v, want one that says to pass --db", err)
	}
}

func TestCreatingADatabaseOnAFullDiskSaysSoOnce(t *testing.T) {
	disk := storetest.MountSmallDisk(t, "256k")
	storetest.FillDisk(t, disk)
	path := filepath.Join(disk, "prototyper.db")
	_, err := Open(path, Options{})
	if !errors.Is(err, ErrWrite) || !errors.Is(err, syscall.ENOSPC) {
		t.Fatalf("err = %v, want one matching ErrWrite and ENOSPC", err)
	}
	if msg := err.Error(); strings.Count(msg, path) != 1 || !strings.Contains(msg, "free some disk space") {
		t.Errorf("the message should name the file once and say to free space: %q", msg)
	}
}

func TestNewerSchemaIsRefused(t *testing.T) {
	db, path := openTestDB(t, nil)
	db.Close()
	storetest.SetSchema(t, path, CurrentSchema()+1)
	for _, readOnly := range []bool{false, true} {
		_, err := Open(path, Options{ReadOnly: readOnly})
		if !errors.Is(err, ErrNewerSchema) {
			t.Fatalf("readOnly=%v: err = %v, want ErrNewerSchema", readOnly, err)
		}
		if !strings.Contains(err.Error(), "update Prototyper") {
			t.Errorf("message does not say what to do: %v", err)
		}
	}
}

func TestOlderSchemaIsBackedUpThenMigratedInOneTransaction(t *testing.T) {
	db, path := openTestDB(t, nil)
	c := mustChat(t, db, Chat{Title: "kept"})
	db.Close()

	saved := migrations
	t.Cleanup(func() { migrations = saved })
	migrations = append(append([]migration(nil), saved...), migration{
		to: 2, about: "test: a bucket", apply: func(tx *bolt.Tx) error {
			_, err := tx.CreateBucket([]byte("v2"))
			return err
		},
	})
	if _, err := Open(path, Options{ReadOnly: true}); !errors.Is(err, ErrNeedsMigration) {
		t.Fatalf("read-only open of an older file: err = %v, want ErrNeedsMigration", err)
	}

	db, err := Open(path, Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	if v, _, _ := db.schemaVersion(); v != 2 {
		t.Errorf("schema after migration = %d, want 2", v)
	}
	if got, err := db.Chat(c.ID); err != nil || got.Title != "kept" {
		t.Errorf("chat after migration = %+v, %v", got, err)
	}
	backup, err := bolt.Open(BackupPath(path, 1), 0o600, &bolt.Options{ReadOnly: true})
	if err != nil {
		t.Fatalf("no backup of the old file: %v", err)
	}
	defer backup.Close()
	_ = backup.View(func(tx *bolt.Tx) error {
		if v := binary.BigEndian.Uint64(tx.Bucket(bucketMeta).Get(keySchema)); v != 1 {
			t.Errorf("backup schema = %d, want 1", v)
		}
		if tx.Bucket([]byte("v2")) != nil {
			t.Error("the backup was taken after migrating")
		}
		return nil
	})
}

func TestFailedMigrationLeavesTheFileAsItWas(t *testing.T) {
	db, path := openTestDB(t, nil)
	db.Close()
	saved := migrations
	t.Cleanup(func() { migrations = saved })
	migrations = append(append([]migration(nil), saved...),
		migration{to: 2, about: "half", apply: func(tx *bolt.Tx) error { _, err := tx.CreateBucket([]byte("v2")); return err }},
		migration{to: 3, about: "fails", apply: func(*bolt.Tx) error { return errors.New("boom") }},
	)
	if _, err := Open(path, Options{}); err == nil || !strings.Contains(err.Error(), "schema 3") {
		t.Fatalf("err = %v, want the failing migration named", err)
	}
	migrations = saved
	db, err := Open(path, Options{})
	if err != nil {
		t.Fatalf("the file no longer opens with the old version: %v", err)
	}
	defer db.Close()
	_ = db.bolt.View(func(tx *bolt.Tx) error {
		if tx.Bucket([]byte("v2")) != nil {
			t.Error("half a migration was kept")
		}
		return nil
	})
}

func TestSettingsRoundTrip(t *testing.T) {
	db, _ := openTestDB(t, nil)
	if s, err := db.Settings(); err != nil || s.OllamaURL != "" {
		t.Fatalf("fresh settings = %+v, %v", s, err)
	}
	want := Settings{
		OllamaURL: "http://127.0.0.1:11434", DefaultModel: "qwen3:4b", Workspace: "/w", Think: "low",
		ContextCap: 8192, ToolApproval: map[string]string{"write_file": "ask", "*": "auto"}, AckFallbackMs: 16,
	}
	if err := db.PutSettings(want); err != nil {
		t.Fatal(err)
	}
	got, err := db.Settings()
	if err != nil {
		t.Fatal(err)
	}
	if fmt.Sprint(got) != fmt.Sprint(want) {
		t.Errorf("settings = %+v, want %+v", got, want)
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

func TestARunKeepsItsNotesAcrossItsEndAndAReopen(t *testing.T) {
	db, path := openTestDB(t, nil)
	c := mustChat(t, db, Chat{})
	run, _ := db.StartRun(Run{ChatID: c.ID})
	unavailable := RunNote{Code: "tools_unavailable", Message: "The MCP server files could not start."}
	loop := RunNote{StopReason: events.StopLoop, Message: "Stopped: list_dir {\"path\":\".\"} was called 3 times in a row."}
	if _, err := db.AddRunNote(run.ID, unavailable); err != nil {
		t.Fatal(err)
	}
	if _, err := db.AddRunNote(run.ID, loop); err != nil {
		t.Fatal(err)
	}
	if _, err := db.FinishRun(run.ID, events.StopLoop, nil); err != nil {
		t.Fatal(err)
	}
	_ = db.Close()

	db, err := Open(path, Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	got, err := db.Run(run.ID)
	if err != nil {
		t.Fatal(err)
	}
	if len(got.Notes) != 2 || got.Notes[0] != unavailable || got.Notes[1] != loop {
		t.Errorf("notes = %+v, want the tools notice then the loop sentence", got.Notes)
	}
	if _, err := db.AddRunNote("no-such-run", loop); err == nil {
		t.Error("a note was kept for a run that does not exist")
	}
}
