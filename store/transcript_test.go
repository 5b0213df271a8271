package store

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"testing"

	"prototyper/events"
)

// deadRunFixture leaves a database as a process killed in the middle of two runs leaves it:
// one running a tool, one paused on an approval, each with its tool record, and one run
// that finished.
func deadRunFixture(t *testing.T) (path string, chat Chat, running, paused, finished Run) {
	t.Helper()
	path = filepath.Join(t.TempDir(), "p.db")
	db, err := Open(path, Options{})
	if err != nil {
		t.Fatal(err)
	}
	chat = mustChat(t, db, Chat{})
	finished, _ = db.StartRun(Run{ChatID: chat.ID})
	if err := db.PutToolCall(ToolCallRecord{ID: "done", ChatID: chat.ID, RunID: finished.ID, Name: "read_file", Pending: true}); err != nil {
		t.Fatal(err)
	}
	if _, err := db.CompleteToolCall(chat.ID, "done", ToolResult{OK: true}); err != nil {
		t.Fatal(err)
	}
	if _, err := db.FinishRun(finished.ID, events.StopCompleted, nil); err != nil {
		t.Fatal(err)
	}
	running, _ = db.StartRun(Run{ChatID: chat.ID, Phase: events.PhaseTools})
	paused, _ = db.StartRun(Run{ChatID: chat.ID, Phase: events.PhaseAwaitingApproval})
	for _, r := range []ToolCallRecord{
		{ID: "cut", ChatID: chat.ID, RunID: running.ID, Name: "write_file", Pending: true},
		{ID: "asks", ChatID: chat.ID, RunID: paused.ID, Name: "delete_file", AwaitingApproval: true},
	} {
		if err := db.PutToolCall(r); err != nil {
			t.Fatal(err)
		}
	}
	if err := db.Close(); err != nil { // as if killed: the runs stay live
		t.Fatal(err)
	}
	return path, chat, running, paused, finished
}

func TestReadOnlyReadsADeadRunsPendingCallsAsInterruptedWithoutWriting(t *testing.T) {
	path, chat, running, paused, finished := deadRunFixture(t)
	before, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}

	db, err := Open(path, Options{ReadOnly: true})
	if err != nil {
		t.Fatal(err)
	}
	tr, err := db.Transcript(chat.ID)
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]struct {
		stop        string
		interrupted bool // of its tool record
	}{
		running.ID:  {StopInterrupted, true},
		paused.ID:   {events.StopAwaitingApproval, false},
		finished.ID: {events.StopCompleted, false},
	}
	if len(tr.Runs) != 3 {
		t.Fatalf("runs = %+v", tr.Runs)
	}
	for _, r := range tr.Runs {
		if r.Live || r.StopReason != want[r.ID].stop {
			t.Errorf("run %s reads live %v, stop %q; want not live, stop %q", r.ID, r.Live, r.StopReason, want[r.ID].stop)
		}
	}
	for _, rec := range tr.ToolCalls {
		if got := tr.Interrupted(rec); got != want[rec.RunID].interrupted {
			t.Errorf("record %s: Interrupted = %v, want %v", rec.ID, got, want[rec.RunID].interrupted)
		}
		if rec.ID == "cut" && !rec.Pending {
			t.Error("the reader changed the record: nobody knows whether the tool finished")
		}
	}
	// Every read of the handle agrees.
	if r, _ := db.Run(running.ID); r.Live || r.StopReason != StopInterrupted {
		t.Errorf("Run = %+v", r)
	}
	if runs, _ := db.RunsOf(chat.ID); len(runs) != 3 || runs[1].Live || runs[1].StopReason != StopInterrupted {
		t.Errorf("RunsOf = %+v", runs)
	}
	if live, _ := db.LiveRuns(); len(live) != 0 {
		t.Errorf("LiveRuns through a read-only handle = %+v, want none", live)
	}
	if got := db.Recovered(); len(got) != 2 {
		t.Errorf("Recovered = %+v, want the two runs left live", got)
	}
	db.Close()

	after, _ := os.ReadFile(path)
	if !bytes.Equal(before, after) {
		t.Fatal("a read-only reader wrote to the file")
	}
	// the writable Open still finds them, and marks them the same way
	db, err = Open(path, Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	if got := db.Recovered(); len(got) != 2 {
		t.Errorf("after the reader, a writable Open recovered %+v, want the two runs", got)
	}
	written, _ := db.Transcript(chat.ID)
	a, _ := json.Marshal(tr.Runs)
	b, _ := json.Marshal(written.Runs)
	if !bytes.Equal(a, b) {
		t.Errorf("the reader's runs differ from what recovery writes:\nread    %s\nwritten %s", a, b)
	}
}

func TestTranscriptOfALiveRunShowsItsCallRunning(t *testing.T) {
	db, _ := openTestDB(t, nil)
	c := mustChat(t, db, Chat{})
	r, _ := db.StartRun(Run{ChatID: c.ID})
	if err := db.PutToolCall(ToolCallRecord{ID: "c1", ChatID: c.ID, RunID: r.ID, Pending: true}); err != nil {
		t.Fatal(err)
	}
	tr, err := db.Transcript(c.ID)
	if err != nil {
		t.Fatal(err)
	}
	if len(tr.ToolCalls) != 1 || tr.Interrupted(tr.ToolCalls[0]) {
		t.Errorf("the call of a live run reads as interrupted: %+v", tr)
	}
	if _, err := db.Transcript("nope"); err == nil {
		t.Error("the transcript of a missing chat")
	}
}
