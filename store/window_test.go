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
