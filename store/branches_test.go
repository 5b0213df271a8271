package store

import (
	"errors"
	"fmt"
	"strings"
	"testing"
)

func appendTexts(tb testing.TB, db *DB, chatID string, roleTexts ...string) []Message {
	tb.Helper()
	var out []Message
	for i := 0; i < len(roleTexts); i += 2 {
		m, err := db.AppendMessage(chatID, Message{Role: roleTexts[i], Content: roleTexts[i+1], Complete: true})
		if err != nil {
			tb.Fatal(err)
		}
		out = append(out, m)
	}
	return out
}

func contents(tb testing.TB, db *DB, chatID string) string {
	tb.Helper()
	msgs, err := db.Messages(chatID)
	if err != nil {
		tb.Fatal(err)
	}
	var parts []string
	for _, m := range msgs {
		parts = append(parts, m.Content)
	}
	return strings.Join(parts, "|")
}

func TestAnEditedMessageStartsANewVersionAndTheOldOneStaysReachable(t *testing.T) {
	db, _ := openTestDB(t, nil)
	c := mustChat(t, db, Chat{Workspace: "/w"})
	first := appendTexts(t, db, c.ID, RoleUser, "make a", RoleAssistant, "made a", RoleUser, "now b", RoleAssistant, "made b")

	after, err := db.ForkAt(c.ID, first[2].ID)
	if err != nil || after != first[1].ID {
		t.Fatalf("ForkAt = %q, %v; want the answer before it", after, err)
	}
	if got := contents(t, db, c.ID); got != "make a|made a" {
		t.Fatalf("after the fork the chat shows %q", got)
	}
	edited := appendTexts(t, db, c.ID, RoleUser, "now c", RoleAssistant, "made c")
	if got := contents(t, db, c.ID); got != "make a|made a|now c|made c" {
		t.Fatalf("the edited chat shows %q", got)
	}
	versions, hidden, err := db.Versions(c.ID)
	if err != nil {
		t.Fatal(err)
	}
	if len(versions) != 1 || versions[0] != (Version{MessageID: edited[0].ID, Index: 2, Count: 2}) {
		t.Fatalf("versions = %+v, want the edit shown as 2 of 2", versions)
	}
	if !hidden[first[2].ID] || !hidden[first[3].ID] || hidden[first[0].ID] {
		t.Errorf("hidden = %v, want the two messages put aside", hidden)
	}
	if ch, _ := db.Chat(c.ID); ch.MessageCount != 4 {
		t.Errorf("message count = %d, want the 4 shown", ch.MessageCount)
	}

	// back to the first version, then forward again: nothing is lost either way
	if err := db.ShowVersion(c.ID, after, first[2].ID); err != nil {
		t.Fatal(err)
	}
	if got := contents(t, db, c.ID); got != "make a|made a|now b|made b" {
		t.Fatalf("version 1 shows %q", got)
	}
	if v, _, _ := db.Versions(c.ID); len(v) != 1 || v[0].Index != 1 || v[0].Count != 2 || v[0].MessageID != first[2].ID {
		t.Fatalf("versions = %+v, want 1 of 2", v)
	}
	if err := db.ShowVersionAt(c.ID, first[2].ID, 2); err != nil {
		t.Fatal(err)
	}
	if got := contents(t, db, c.ID); got != "make a|made a|now c|made c" {
		t.Fatalf("version 2 shows %q", got)
	}
	if err := db.ShowVersionAt(c.ID, edited[0].ID, 3); !errors.Is(err, ErrNoSuchVersion) {
		t.Errorf("version 3 of 2: %v, want ErrNoSuchVersion", err)
	}
	// a message appended after switching keeps the order of the shown version
	appendTexts(t, db, c.ID, RoleUser, "and d")
	if got := contents(t, db, c.ID); got != "make a|made a|now c|made c|and d" {
		t.Fatalf("after a new message the chat shows %q", got)
	}
}

func TestAForkAtTheFirstMessageAndNestedForksKeepEveryVersion(t *testing.T) {
	db, _ := openTestDB(t, nil)
	c := mustChat(t, db, Chat{})
	v1 := appendTexts(t, db, c.ID, RoleUser, "one", RoleAssistant, "1")
	if after, err := db.ForkAt(c.ID, v1[0].ID); err != nil || after != "" {
		t.Fatalf("ForkAt(first) = %q, %v", after, err)
	}
	v2 := appendTexts(t, db, c.ID, RoleUser, "two", RoleAssistant, "2", RoleUser, "two more", RoleAssistant, "2+")
	if _, err := db.ForkAt(c.ID, v2[2].ID); err != nil {
		t.Fatal(err)
	}
	appendTexts(t, db, c.ID, RoleUser, "two other", RoleAssistant, "2'")
	versions, _, _ := db.Versions(c.ID)
	if len(versions) != 2 || versions[0].Count != 2 || versions[1].Count != 2 {
		t.Fatalf("versions = %+v, want two forks of two", versions)
	}
	// showing version 1 at the start hides the nested fork with its version
	if err := db.ShowVersion(c.ID, "", v1[0].ID); err != nil {
		t.Fatal(err)
	}
	if got := contents(t, db, c.ID); got != "one|1" {
		t.Fatalf("version 1 shows %q", got)
	}
	if versions, _, _ := db.Versions(c.ID); len(versions) != 1 {
		t.Fatalf("versions = %+v, want the one fork at the start", versions)
	}
	if err := db.ShowVersion(c.ID, "", v2[0].ID); err != nil {
		t.Fatal(err)
	}
	if got := contents(t, db, c.ID); got != "two|2|two other|2'" {
		t.Fatalf("version 2 shows %q", got)
	}
	if err := db.ShowVersion(c.ID, v2[1].ID, "nope"); !errors.Is(err, ErrNoSuchVersion) {
		t.Errorf("an unknown version: %v, want ErrNoSuchVersion", err)
	}
}

func TestSearchFindsChatsByTitleAndByTheTextOfTheirMessages(t *testing.T) {
	db, _ := openTestDB(t, nil)
	byTitle := mustChat(t, db, Chat{Title: "Snake game in Python"})
	byText := mustChat(t, db, Chat{Title: "Other"})
	appendTexts(t, db, byText.ID, RoleUser, "write a README", RoleAssistant, strings.Repeat("word ", 50)+"the SNAKE moves left"+strings.Repeat(" more", 50))
	none := mustChat(t, db, Chat{Title: "Nothing"})
	appendTexts(t, db, none.ID, RoleUser, "hello", RoleTool, "snake in a tool result is not searched")

	hits, err := db.SearchChats("snake", 0)
	if err != nil {
		t.Fatal(err)
	}
	if len(hits) != 2 {
		t.Fatalf("hits = %+v, want two", hits)
	}
	ids := map[string]ChatHit{}
	for _, h := range hits {
		ids[h.Chat.ID] = h
	}
	if h, ok := ids[byTitle.ID]; !ok || h.MessageID != "" {
		t.Errorf("the title hit = %+v", h)
	}
	h := ids[byText.ID]
	if h.MessageID == "" || !strings.Contains(h.Snippet, "the SNAKE moves left") || !strings.HasPrefix(h.Snippet, "…") || len([]rune(h.Snippet)) > 100 {
		t.Errorf("the message hit = %+v, want a short snippet around the words", h)
	}
	// words JSON escapes, and letters beyond ASCII, are found too
	special := mustChat(t, db, Chat{Title: "Markup"})
	appendTexts(t, db, special.ID, RoleUser, "wrap it in a <DIV> & style the Café menu")
	for _, q := range []string{"<div>", "& style", "café", "CAFÉ"} {
		if hits, _ := db.SearchChats(q, 0); len(hits) != 1 || hits[0].Chat.ID != special.ID {
			t.Errorf("search %q = %+v, want the markup chat", q, hits)
		}
	}
	if hits, _ := db.SearchChats("  ", 0); len(hits) != 0 {
		t.Errorf("an empty query found %v", hits)
	}
	if hits, _ := db.SearchChats("o", 1); len(hits) != 1 {
		t.Errorf("limit 1 gave %d hits", len(hits))
	}
}

func BenchmarkSearchChats(b *testing.B) {
	db, _ := openTestDB(b, nil)
	for i := range 200 {
		c := mustChat(b, db, Chat{Title: fmt.Sprintf("chat %d", i)})
		for j := range 20 {
			appendTexts(b, db, c.ID, RoleUser, fmt.Sprintf("message %d of chat %d, asking for a file", j, i),
				RoleAssistant, strings.Repeat("an answer with some words in it ", 30))
		}
	}
	b.ResetTimer()
	for range b.N {
		if _, err := db.SearchChats("never found anywhere", 0); err != nil {
			b.Fatal(err)
		}
	}
}

// Showing another version of a chat (or putting one aside to edit a message) writes nothing
// new in it: the chat keeps its place in the list, newest activity first, and search still
// finds the version shown.
func TestAVersionSwitchLeavesTheChatWhereItIsInTheList(t *testing.T) {
	db, _ := openTestDB(t, nil)
	older := mustChat(t, db, Chat{Workspace: "/w"})
	first := appendTexts(t, db, older.ID, RoleUser, "make a", RoleAssistant, "made a")
	if _, err := db.ForkAt(older.ID, first[0].ID); err != nil {
		t.Fatal(err)
	}
	second := appendTexts(t, db, older.ID, RoleUser, "make zebra", RoleAssistant, "made zebra")
	newer := mustChat(t, db, Chat{Workspace: "/w"})
	appendTexts(t, db, newer.ID, RoleUser, "hello", RoleAssistant, "hi")

	order := func() string {
		chats, err := db.ListChats()
		if err != nil {
			t.Fatal(err)
		}
		var ids []string
		for _, c := range chats {
			ids = append(ids, c.ID)
		}
		return strings.Join(ids, ",")
	}
	want := newer.ID + "," + older.ID
	if got := order(); got != want {
		t.Fatalf("list = %s before the switch, want the newer chat first (%s)", got, want)
	}
	if err := db.ShowVersionAt(older.ID, second[0].ID, 1); err != nil {
		t.Fatal(err)
	}
	if got := contents(t, db, older.ID); got != "make a|made a" {
		t.Fatalf("the chat shows %q after the switch", got)
	}
	if got := order(); got != want {
		t.Errorf("list = %s after a version switch, want %s: only a new message brings a chat to the top", got, want)
	}
	if _, err := db.ForkAt(older.ID, first[0].ID); err != nil {
		t.Fatal(err)
	}
	if got := order(); got != want {
		t.Errorf("list = %s after a message was put aside to be edited, want %s", got, want)
	}
	appendTexts(t, db, older.ID, RoleUser, "make b")
	if got := order(); got != older.ID+","+newer.ID {
		t.Errorf("list = %s after a new message, want the chat it went to first", got)
	}
	hits, err := db.SearchChats("make b", 10)
	if err != nil || len(hits) != 1 || hits[0].Chat.ID != older.ID {
		t.Errorf("search after the switches = %+v, %v; want the chat, its index kept whole", hits, err)
	}
}
