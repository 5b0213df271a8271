package store

import (
	"maps"
	"testing"
)

// What is typed in a chat's box and not sent outlives the app: kept by chat (and for the chat
// not started yet), forgotten once empty, and gone with its chat.
func TestUnsentTextIsKeptByChatUntilSentOrItsChatIsDeleted(t *testing.T) {
	db, _ := openTestDB(t, newTestClock())
	c := mustChat(t, db, Chat{})
	for chat, text := range map[string]string{c.ID: "a thought for later", "": "the first words of a new chat"} {
		if err := db.SaveDraft(chat, text); err != nil {
			t.Fatal(err)
		}
	}
	if d, err := db.Drafts(); err != nil || !maps.Equal(d, map[string]string{c.ID: "a thought for later", "": "the first words of a new chat"}) {
		t.Errorf("drafts %v, %v; want the text of each", d, err)
	}
	if err := db.SaveDraft("", ""); err != nil { // sent
		t.Fatal(err)
	}
	if err := db.DeleteChat(c.ID); err != nil {
		t.Fatal(err)
	}
	if d, err := db.Drafts(); err != nil || len(d) != 0 {
		t.Errorf("drafts %v, %v; want none once sent and once the chat is deleted", d, err)
	}
}

// The chat the window showed last is the one it shows when opened again, while it exists.
func TestTheChatShownLastIsRememberedWhileItExists(t *testing.T) {
	db, _ := openTestDB(t, newTestClock())
	older, newer := mustChat(t, db, Chat{}), mustChat(t, db, Chat{})
	if id, err := db.OpenChatID(); err != nil || id != "" {
		t.Errorf("before any: %q, %v; want none", id, err)
	}
	if err := db.SetOpenChat(older.ID); err != nil {
		t.Fatal(err)
	}
	if id, _ := db.OpenChatID(); id != older.ID {
		t.Errorf("open chat %q, want %s", id, older.ID)
	}
	_ = db.DeleteChat(older.ID)
	if id, _ := db.OpenChatID(); id != "" {
		t.Errorf("open chat %q after it was deleted, want none (the window then shows %s, the newest)", id, newer.ID)
	}
}

// A message waiting in a busy chat's queue outlives the app: kept as the queue changes, given
// back to its chat's box (after what was typed there) by the next Open, and gone with its chat.
func TestQueuedMessagesAreGivenBackToTheirChatsBoxWhenTheFileIsOpenedAgain(t *testing.T) {
	db, path := openTestDB(t, newTestClock())
	typed, quiet, gone := mustChat(t, db, Chat{}), mustChat(t, db, Chat{}), mustChat(t, db, Chat{})
	for chat, texts := range map[string][]string{typed.ID: {"then shorter", "and in French"}, quiet.ID: {"one more thing"}, gone.ID: {"lost?"}} {
		if err := db.SetQueued(chat, unsent(texts...)); err != nil {
			t.Fatal(err)
		}
	}
	if err := db.SaveDraft(typed.ID, "half a thought"); err != nil {
		t.Fatal(err)
	}
	if err := db.DeleteChat(gone.ID); err != nil {
		t.Fatal(err)
	}
	if q, err := db.Queued(); err != nil || len(q) != 2 || q[gone.ID] != nil {
		t.Errorf("queued %v, %v; want the two chats still there", q, err)
	}
	db.Close()
	db = reopen(t, path, Options{})
	want := map[string]string{typed.ID: "half a thought\n\nthen shorter\n\nand in French", quiet.ID: "one more thing"}
	if d, err := db.Drafts(); err != nil || !maps.Equal(d, want) {
		t.Errorf("drafts %q, %v; want %q", d, err, want)
	}
	if q, err := db.Queued(); err != nil || len(q) != 0 {
		t.Errorf("queued %v, %v after the Open; want none", q, err)
	}
}

// A Stop gives the messages it took from one chat's queue back to its box, keeps those its
// run is storing, and leaves another chat's queue.
func TestGivingBackOneChatsQueueLeavesWhatItsRunStoresAndTheOthers(t *testing.T) {
	db, _ := openTestDB(t, newTestClock())
	a, b := mustChat(t, db, Chat{}), mustChat(t, db, Chat{})
	_ = db.SetQueued(a.ID, unsent("being stored", "for a"))
	_ = db.SetQueued(b.ID, unsent("for b"))
	if err := db.GiveBackQueued(a.ID, unsent("for a"), unsent("being stored")); err != nil {
		t.Fatal(err)
	}
	if d, _ := db.Drafts(); !maps.Equal(d, map[string]string{a.ID: "for a"}) {
		t.Errorf("drafts %q; want what a's Stop took given back", d)
	}
	if q, _ := db.Queued(); len(q) != 2 || q[a.ID][0] != "being stored" || q[b.ID][0] != "for b" {
		t.Errorf("queued %q; want a's message being stored and b's kept", q)
	}
	_ = db.SetQueued(a.ID, nil) // stored by its run
	if err := db.SetQueued(b.ID, nil); err != nil {
		t.Fatal(err)
	}
	if q, _ := db.Queued(); len(q) != 0 {
		t.Errorf("queued %q; want none", q)
	}
}

// A text the window already saved in the box, given back when the run stopped, is not added
// again when the next Open gives the kept queue back.
func TestAQueuedTextTheBoxAlreadyHoldsIsNotGivenBackTwice(t *testing.T) {
	if d := draftAtNextOpen(t, "typed\n\nthen shorter", "then shorter", "and in French"); d != "typed\n\nthen shorter\n\nand in French" {
		t.Errorf("draft %q; want each text once", d)
	}
}

// unsent is messages of texts, without images.
func unsent(texts ...string) []Unsent {
	m := make([]Unsent, len(texts))
	for i, t := range texts {
		m[i] = Unsent{Text: t}
	}
	return m
}

// draftAtNextOpen is the text of a chat's box after the next Open, the box holding typed and
// the chat's queue the texts queued when the app ended.
func draftAtNextOpen(t *testing.T, typed string, queued ...string) string {
	t.Helper()
	db, path := openTestDB(t, newTestClock())
	c := mustChat(t, db, Chat{})
	_ = db.SetQueued(c.ID, unsent(queued...))
	_ = db.SaveDraft(c.ID, typed)
	db.Close()
	d, _ := reopen(t, path, Options{}).Drafts()
	return d[c.ID]
}

// A queued text is held by the box only as whole blank-line-separated parts of it: a short text
// that is a word of what is typed is still given back.
func TestAQueuedTextInsideAWordOfTheBoxIsStillGivenBack(t *testing.T) {
	if d := draftAtNextOpen(t, "look at the header\n\ntwo\n\nparts", "the", "two\n\nparts"); d != "look at the header\n\ntwo\n\nparts\n\nthe" {
		t.Errorf("draft %q; want the queued text given back after the box's", d)
	}
}
