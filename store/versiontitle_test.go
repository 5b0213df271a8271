package store

import "testing"

// wantTitle fails tb when the chat's title is not want, saying when.
func wantTitle(tb testing.TB, db *DB, chatID, want, when string) {
	tb.Helper()
	c, err := db.Chat(chatID)
	if err != nil {
		tb.Fatal(err)
	}
	if c.Title != want {
		tb.Fatalf("%s the title is %q, want %q", when, c.Title, want)
	}
}

func TestAChatsTitleFollowsTheFirstMessageOfTheVersionShown(t *testing.T) {
	db, _ := openTestDB(t, nil)
	c := mustChat(t, db, Chat{Workspace: "/w"})
	first := appendTexts(t, db, c.ID, RoleUser, "Make a todo app", RoleAssistant, "Made it", RoleUser, "Add dark mode", RoleAssistant, "Added")
	wantTitle(t, db, c.ID, "Make a todo app", "at first")

	// the first message edited and resent
	if _, err := db.ForkAt(c.ID, first[0].ID); err != nil {
		t.Fatal(err)
	}
	edited := appendTexts(t, db, c.ID, RoleUser, "Make a weather app\nwith a map", RoleAssistant, "Made it")
	wantTitle(t, db, c.ID, "Make a weather app", "after the first message was edited")

	// a later message edited: the first stays, and so does the title
	if _, err := db.ForkAt(c.ID, edited[1].ID); err != nil {
		t.Fatal(err)
	}
	appendTexts(t, db, c.ID, RoleAssistant, "Made it again")
	wantTitle(t, db, c.ID, "Make a weather app", "after an answer was regenerated")

	// the first version shown again, then the second
	if err := db.ShowVersionAt(c.ID, edited[0].ID, 1); err != nil {
		t.Fatal(err)
	}
	wantTitle(t, db, c.ID, "Make a todo app", "with the first version shown")
	if err := db.ShowVersion(c.ID, "", edited[0].ID); err != nil {
		t.Fatal(err)
	}
	wantTitle(t, db, c.ID, "Make a weather app", "with the second version shown again")
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
	wantTitle(t, db, c.ID, "Groceries", "after the first message of a renamed chat was edited")
	if err := db.ShowVersionAt(c.ID, edited[0].ID, 1); err != nil {
		t.Fatal(err)
	}
	wantTitle(t, db, c.ID, "Groceries", "with the first version of a renamed chat shown")
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
	wantTitle(t, db, c.ID, "Make a todo app", "after a refused edit")
}
