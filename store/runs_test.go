package store

import (
	"encoding/json"
	"errors"
	"testing"

	"prototyper/events"
)

func TestReopenMarksLiveRunsInterruptedAndLeavesToolCallsPending(t *testing.T) {
	db, path := openTestDB(t, nil)
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

	db = reopen(t, path, Options{})
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

	db = reopen(t, path, Options{})
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

func TestStartRunWithStoresTheRunAndItsMessagesTogether(t *testing.T) {
	db, _ := openTestDB(t, nil)
	c := mustChat(t, db, Chat{Title: "t"})
	run, saved, err := db.StartRunWith(Run{ChatID: c.ID}, Message{Role: RoleUser, Content: "hi"})
	if err != nil {
		t.Fatal(err)
	}
	msgs, err := db.Messages(c.ID)
	if err != nil || len(msgs) != 1 || len(saved) != 1 {
		t.Fatalf("messages = %+v, %v (returned %d); want the one message", msgs, err, len(saved))
	}
	if m := msgs[0]; m.ID != saved[0].ID || m.RunID != run.ID || !m.Complete || m.Content != "hi" {
		t.Errorf("stored %+v, want the message of run %s, complete", m, run.ID)
	}
	if got, err := db.Run(run.ID); err != nil || !got.Live {
		t.Errorf("run = %+v, %v; want it live", got, err)
	}
}

func TestStartRunWithThatFailsStoresNoMessage(t *testing.T) {
	db, _ := openTestDB(t, nil)
	c := mustChat(t, db, Chat{Title: "t"})
	run, err := db.StartRun(Run{ChatID: c.ID})
	if err != nil {
		t.Fatal(err)
	}
	_, _, err = db.StartRunWith(Run{ID: run.ID, ChatID: c.ID}, Message{Role: RoleUser, Content: "hi"})
	var exists *existsError
	if !errors.As(err, &exists) {
		t.Fatalf("a run started twice: %v, want it to exist already", err)
	}
	if msgs, _ := db.Messages(c.ID); len(msgs) != 0 {
		t.Errorf("messages after the failed start = %+v, want none", msgs)
	}
}
