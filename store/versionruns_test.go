package store

import (
	"maps"
	"slices"
	"testing"
)

// appendRun appends messages of run runID, role and text by turns.
func appendRun(tb testing.TB, db *DB, chatID, runID string, roleTexts ...string) []Message {
	tb.Helper()
	var out []Message
	for i := 0; i < len(roleTexts); i += 2 {
		m, err := db.AppendMessage(chatID, Message{RunID: runID, Role: roleTexts[i], Content: roleTexts[i+1], Complete: true})
		if err != nil {
			tb.Fatal(err)
		}
		out = append(out, m)
	}
	return out
}

func runsNotShown(tb testing.TB, db *DB, chatID string) []string {
	tb.Helper()
	runs, err := db.RunsNotShown(chatID)
	if err != nil {
		tb.Fatal(err)
	}
	return slices.Sorted(maps.Keys(runs))
}

func TestTheRunsNotShownAreThoseOfTheVersionsPutAsideOnly(t *testing.T) {
	db, _ := openTestDB(t, nil)
	c := mustChat(t, db, Chat{Workspace: "/w"})
	appendRun(t, db, c.ID, "r1", RoleUser, "make a", RoleAssistant, "made a")
	second := appendRun(t, db, c.ID, "r2", RoleUser, "now b", RoleAssistant, "made b", RoleUser, "and c", RoleAssistant, "made c")
	if got := runsNotShown(t, db, c.ID); len(got) != 0 {
		t.Fatalf("a chat never edited has runs not shown: %v", got)
	}

	// a fork at a message taken during r2 splits r2: it is of the version shown still
	if _, err := db.ForkAt(c.ID, second[2].ID); err != nil {
		t.Fatal(err)
	}
	if got := runsNotShown(t, db, c.ID); len(got) != 0 {
		t.Fatalf("runs not shown after a fork inside a run: %v, want none", got)
	}

	if _, err := db.ForkAt(c.ID, second[0].ID); err != nil {
		t.Fatal(err)
	}
	third := appendRun(t, db, c.ID, "r3", RoleUser, "now d", RoleAssistant, "made d")
	if got := runsNotShown(t, db, c.ID); !slices.Equal(got, []string{"r2"}) {
		t.Fatalf("runs not shown after the edit: %v, want r2", got)
	}
	if err := db.ShowVersionAt(c.ID, third[0].ID, 1); err != nil {
		t.Fatal(err)
	}
	if got := runsNotShown(t, db, c.ID); !slices.Equal(got, []string{"r3"}) {
		t.Errorf("runs not shown with the first version shown again: %v, want r3", got)
	}
}
