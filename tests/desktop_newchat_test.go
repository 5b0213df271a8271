package tests

import (
	"os"
	"path/filepath"
	"testing"
	"time"

	"prototyper/events"
	"prototyper/store"
)

// TestDesktopANewChatFromAModelChangeKeepsTheFolderTheHeaderShows: with a chat of the first
// folder open while new chats went to a second one, picking another model and "Start a new
// chat" gives a chat with that model in the first folder, the one the header showed, not the
// folder used last elsewhere.
func TestDesktopANewChatFromAModelChangeKeepsTheFolderTheHeaderShows(t *testing.T) {
	r := startDesktopRunWith(t, folderModel, store.Settings{}, "Say where you are")
	ws1, ws2 := r.workspace, filepath.Join(t.TempDir(), "second")
	if err := os.MkdirAll(ws2, 0o755); err != nil {
		t.Fatal(err)
	}
	r.waitLogN(t, events.RunFinished, 1, true, 60*time.Second)

	// a chat in the second folder: new chats go there since
	r.app.key("ctrl+n")
	settle()
	r.typeFolder(ws2)
	r.waitHeaderFolder(ws2)
	r.sendAndWait(t, "A chat elsewhere", 2)

	// the first chat again, then another model for a new chat
	r.openAndType("ctrl+k", "Say where", "newchat-search.png")
	r.app.key("Return")
	r.waitHeaderFolder(ws1)
	r.openAndType("ctrl+m", "e2e-writer", "newchat-model-filter.png")
	r.app.key("Return")
	r.app.press("Start a new chat")
	r.waitComposerFocus()
	r.waitHeaderFolder(ws1)
	r.app.screenshot("newchat-from-model-change.png")
	r.app.typeText("Write hello.txt with a greeting")
	r.app.key("Return")
	r.waitLogN(t, events.RunStarted, 3, true, 60*time.Second)

	_, db := r.finish(t, "newchat-end.png")
	chats, err := db.ListChats()
	if err != nil || len(chats) != 3 {
		t.Fatalf("chats = %+v, %v; want three", chats, err)
	}
	for _, c := range chats {
		if c.Title == "Write hello.txt with a greeting" {
			if c.Workspace != ws1 || c.Model != writerModel.Name+":latest" && c.Model != writerModel.Name {
				t.Errorf("the new chat works in %s with %s, want %s with %s", c.Workspace, c.Model, ws1, writerModel.Name)
			}
			return
		}
	}
	t.Errorf("no chat of the message sent after the model change: %+v", chats)
}

// TestDesktopANewChatFromAFolderChangeKeepsTheModelTheHeaderShows: with a chat of one model
// open while new chats took another, picking another folder and "Start a new chat" gives a
// chat in that folder with the open chat's model, the one the header showed.
func TestDesktopANewChatFromAFolderChangeKeepsTheModelTheHeaderShows(t *testing.T) {
	r := startDesktopRunWith(t, folderModel, store.Settings{}, "Say where you are")
	ws1, ws2 := r.workspace, filepath.Join(t.TempDir(), "second")
	if err := os.MkdirAll(ws2, 0o755); err != nil {
		t.Fatal(err)
	}
	r.waitLogN(t, events.RunFinished, 1, true, 60*time.Second)
	wroteIn(t, "the first message", ws1, ws1, ws2)

	// a chat with another model: new chats take it since
	r.app.key("ctrl+n")
	settle()
	r.openAndType("ctrl+m", "e2e-writer", "newchat-other-model.png")
	r.app.key("Return")
	r.waitComposerFocus()
	r.app.typeText("A chat with another model")
	r.app.key("Return")
	r.waitLogN(t, events.RunStarted, 2, true, 60*time.Second)
	r.waitLogN(t, events.RunFinished, 2, true, 60*time.Second)

	// the first chat again, then another folder for a new chat
	r.openAndType("ctrl+k", "Say where", "newchat-search-folder.png")
	r.app.key("Return")
	r.waitHeaderFolder(ws1)
	r.typeFolder(ws2)
	r.app.press("Start a new chat")
	r.waitComposerFocus()
	r.waitHeaderFolder(ws2)
	r.sendAndWait(t, "Say where the new one is", 3)
	wroteIn(t, "the new chat", ws2, ws1, ws2)

	_, db := r.finish(t, "newchat-folder-end.png")
	chats, err := db.ListChats()
	if err != nil || len(chats) != 3 {
		t.Fatalf("chats = %+v, %v; want three", chats, err)
	}
	for _, c := range chats {
		if c.Title == "Say where the new one is" {
			if c.Workspace != ws2 || c.Model != folderModel.Name+":latest" && c.Model != folderModel.Name {
				t.Errorf("the new chat works in %s with %s, want %s with %s", c.Workspace, c.Model, ws2, folderModel.Name)
			}
			return
		}
	}
	t.Errorf("no chat of the message sent after the folder change: %+v", chats)
}
