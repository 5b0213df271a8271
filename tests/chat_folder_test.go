package tests

import (
	"context"
	"os"
	"path/filepath"
	"testing"
	"time"

	"prototyper/events"
	"prototyper/internal/cli"
	"prototyper/internal/desktop"
	"prototyper/internal/ollamatest"
)

// sendAndWait sends prompt to chatID ("" for a new chat) through the window's session, waits
// until its run ended, and returns the chat.
func sendAndWait(t *testing.T, d *desktop.Desktop, chatID, prompt string) string {
	t.Helper()
	res, err := d.Send(context.Background(), chatID, prompt)
	if err != nil {
		t.Fatalf("send %q: %v", prompt, err)
	}
	deadline := time.Now().Add(60 * time.Second)
	for d.Agent().Phase(res.ChatID) != events.PhaseIdle {
		if time.Now().After(deadline) {
			t.Fatalf("the run of %q did not end", prompt)
		}
		time.Sleep(50 * time.Millisecond)
	}
	return res.ChatID
}

// The trust bug of the first version, without a window: a chat started in one folder, with
// another folder chosen for new chats since, wrote in the first folder while the window said
// the second. Now a message to a chat runs in the chat's folder, the chat is moved only when
// asked, and new chats take the folder last used.
func TestAMessageToAChatRunsInTheChatsFolderWhateverNewChatsTake(t *testing.T) {
	srv := ollamatest.Get(t)
	ws1, ws2 := t.TempDir(), t.TempDir()
	d, err := desktop.OpenDesktop(cli.DesktopOptions{Common: cli.Common{Ollama: srv.URL(), DB: filepath.Join(t.TempDir(), "p.db")},
		Workspace: ws1, Model: folderModel.Name}, events.AckOnDelivery(events.SinkFunc(func([]events.Event) error { return nil })))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = d.Close() })

	first := sendAndWait(t, d, "", "Say where you are")
	wroteIn(t, "a new chat", ws1, ws1, ws2)

	// new chats now take ws2; the first chat still writes in ws1
	if _, err := d.UseFolder(ws2); err != nil {
		t.Fatal(err)
	}
	sendAndWait(t, d, first, "And now?")
	wroteIn(t, "the first chat, with another folder for new chats", ws1, ws1, ws2)

	// moved when asked, it writes in ws2 from its next message on
	if _, err := d.SetChatWorkspace(first, ws2); err != nil {
		t.Fatal(err)
	}
	sendAndWait(t, d, first, "Once more")
	wroteIn(t, "the first chat moved", ws2, ws1, ws2)

	// the folder last used is what a new chat takes
	if _, err := d.UseFolder(ws1); err != nil {
		t.Fatal(err)
	}
	sendAndWait(t, d, first, "Last time")
	wroteIn(t, "the moved chat again", ws2, ws1, ws2)
	second := sendAndWait(t, d, "", "A new one")
	wroteIn(t, "a new chat after the moved one was used", ws2, ws1, ws2)
	if second == first {
		t.Fatal("the new chat is the first one")
	}
	if _, err := os.Stat(filepath.Join(ws1, "where.txt")); err == nil {
		t.Error("something wrote in the folder no chat works in")
	}
}
