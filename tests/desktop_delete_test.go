package tests

import (
	"strconv"
	"strings"
	"testing"
	"time"

	"prototyper/events"
	"prototyper/internal/ollamatest"
	"prototyper/store"
)

// A chat deleted from the sidebar while its answer streams is gone for good: its run stops
// and ends before the chat goes, so nothing of it is written afterwards and no error is said
// about a chat that is no longer there; the sidebar no longer lists it, and the store keeps no
// chat and no live run.
func TestDesktopDeletingAChatWhileItsAnswerStreamsRemovesItForGood(t *testing.T) {
	slow := pacedProxy(t, ollamatest.Get(t).URL(), 1000, 60*time.Millisecond) // 15 s of answer
	r := startDesktopRunWith(t, paragraphModel, store.Settings{Think: "on"}, "Write a long answer", withArgs("--ollama", slow))
	r.waitLog(t, events.TextDelta, true, 60*time.Second)

	deleteButtons := func() []string {
		var named []string
		for _, quoted := range r.app.names(rolePushButton) {
			if n, err := strconv.Unquote(quoted); err == nil && strings.HasPrefix(n, "Delete ") {
				named = append(named, n)
			}
		}
		return named
	}
	var buttons []string
	for deadline := time.Now().Add(20 * time.Second); len(buttons) == 0 && time.Now().Before(deadline); {
		buttons = deleteButtons()
	}
	if len(buttons) != 1 {
		t.Fatalf("the sidebar's delete buttons are %q, want the one of the running chat; the buttons: %q", buttons, r.app.names(rolePushButton))
	}
	r.app.press(buttons[0])
	r.app.press("Delete") // the confirmation
	r.waitLog(t, events.RunFinished, false, 30*time.Second)
	for deadline := time.Now().Add(20 * time.Second); len(deleteButtons()) > 0; {
		if time.Now().After(deadline) {
			t.Fatalf("the deleted chat is still listed: %q", deleteButtons())
		}
	}
	time.Sleep(time.Second) // what a run writing to the deleted chat would say arrives meanwhile
	for _, l := range readBridgeLog(t, r.bridgeLog) {
		for _, e := range l.Events {
			if e.Type == events.Error {
				t.Errorf("an error was sent to the window after the chat was deleted:\n%s", mustRead(r.bridgeLog))
			}
		}
	}
	_, db := r.finish(t, "delete-running-chat.png")
	if chats, err := db.ListChats(); err != nil || len(chats) != 0 {
		t.Errorf("the store keeps chats %v (%v), want none", chats, err)
	}
	if live, err := db.LiveRuns(); err != nil || len(live) != 0 {
		t.Errorf("the store keeps live runs %v (%v), want none", live, err)
	}
}
