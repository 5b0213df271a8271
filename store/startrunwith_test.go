package store

import (
	"errors"
	"testing"
)

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
