package store

import "testing"

func title(tb testing.TB, db *DB, chatID string) string {
	tb.Helper()
	c, err := db.Chat(chatID)
	if err != nil {
		tb.Fatal(err)
	}
	return c.Title
}

func TestAChatsTitleFollowsTheFirstMessageOfTheVersionShown(t *testing.T) {
	db, _ := openTestDB(t, nil)
	c := mustChat(t, db, Chat{Workspace: "/w"})
	first := appendTexts(t, db, c.ID, RoleUser, "Make a todo app", RoleAssistant, "Made it", RoleUser, "Add dark mode", RoleAssistant, "Added")
	if got := title(t, db, c.ID); got != "Make a todo app" {
		t.Fatalf("title %q, want the first message's", got)
	}

	// the first message edited and resent
	if _, err := db.ForkAt(c.ID, first[0].ID); err != nil {
		t.Fatal(err)
	}
	edited := appendTexts(t, db, c.ID, RoleUser, "Make a weather app\nwith a map", RoleAssistant, "Made it")
	if got := title(t, db, c.ID); got != "Make a weather app" {
		t.Fatalf("after the first message was edited the title is %q, want the edited message's", got)
	}

	// a later message edited: the first stays, and so does the title
	if _, err := db.ForkAt(c.ID, edited[1].ID); err != nil {
		t.Fatal(err)
	}
	appendTexts(t, db, c.ID, RoleAssistant, "Made it again")
	if got := title(t, db, c.ID); got != "Make a weather app" {
		t.Fatalf("after an answer was regenerated the title is %q", got)
	}

	// the first version shown again, then the second
	if err := db.ShowVersionAt(c.ID, edited[0].ID, 1); err != nil {
		t.Fatal(err)
	}
	if got := title(t, db, c.ID); got != "Make a todo app" {
		t.Fatalf("with the first version shown the title is %q, want its first message's", got)
	}
	if err := db.ShowVersion(c.ID, "", edited[0].ID); err != nil {
		t.Fatal(err)
	}
	if got := title(t, db, c.ID); got != "Make a weather app" {
		t.Fatalf("with the second version shown again the title is %q", got)
	}
}

func TestAChatTheUserRenamedKeepsItsTitleInEveryVersion(t *testing.T) {
	db, _ := openTestDB(t, nil)
	c := mustChat(t, db, Chat{Workspace: "/w"})
	first := appendTexts(t, db, c.ID, RoleUser, "Make a todo app", RoleAssistant, "Made it")
	if _, err := db.RenameChat(c.ID, "Groceries"); err != nil {
		t.Fatal(err)
	}
	if _, err := db.ForkAt(c.ID, first[0].ID); err != nil {
		t.Fatal(err)
	}
	edited := appendTexts(t, db, c.ID, RoleUser, "Make a weather app", RoleAssistant, "Made it")
	if got := title(t, db, c.ID); got != "Groceries" {
		t.Fatalf("after the first message was edited the title is %q, want the user's", got)
	}
	if err := db.ShowVersionAt(c.ID, edited[0].ID, 1); err != nil {
		t.Fatal(err)
	}
	if got := title(t, db, c.ID); got != "Groceries" {
		t.Fatalf("with the first version shown the title is %q, want the user's", got)
	}
}

func TestAFirstMessageEditedAndRefusedLeavesTheTitleAsItWas(t *testing.T) {
	db, _ := openTestDB(t, nil)
	c := mustChat(t, db, Chat{Workspace: "/w"})
	first := appendTexts(t, db, c.ID, RoleUser, "Make a todo app", RoleAssistant, "Made it")
	after, err := db.ForkAt(c.ID, first[0].ID)
	if err != nil {
		t.Fatal(err)
	}
	// the send was refused before anything was stored: the version put aside comes back
	if err := db.ShowVersion(c.ID, after, first[0].ID); err != nil {
		t.Fatal(err)
	}
	if got := title(t, db, c.ID); got != "Make a todo app" {
		t.Fatalf("title %q, want the first message's as before", got)
	}
}
