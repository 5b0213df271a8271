package tests

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"prototyper/events"
	"prototyper/internal/cli"
	"prototyper/internal/desktop"
	"prototyper/internal/ollamatest"
	"prototyper/store"
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

// TestDesktopANewChatFromAModelChangeKeepsTheFolderTheHeaderShows: with a chat of the first
// folder open while new chats went to a second one, picking another model and "Start a new
// chat" gives a chat with that model in the first folder, the one the header showed, not the
// folder used last elsewhere.
func TestDesktopANewChatFromAModelChangeKeepsTheFolderTheHeaderShows(t *testing.T) {
	r, ws1, ws2 := twoFolders(t)
	r.firstChatAfterOneElsewhere(t, ws1, ws2, "newchat-search.png")
	r.app.waitControl(rolePushButton, "Restore to here, before “Say where you are”", 20*time.Second)

	// another model for a new chat
	r.openAndType("ctrl+m", "e2e-writer", "newchat-model-filter.png")
	r.app.key("Return")
	r.app.press("Start a new chat")
	// the new chat opens once the folder and the model are set, and the first chat, in the same
	// folder, shows until then; while the dialog, modal, is open, the chat is not read at all
	r.app.waitNoControl(rolePushButton, "Start a new chat", 30*time.Second)
	r.app.waitNoControl(rolePushButton, "Restore to here, before “Say where you are”", 30*time.Second)
	r.waitComposerFocus()
	r.waitHeaderFolder(ws1)
	r.app.screenshot("newchat-from-model-change.png")
	r.app.typeText("Write hello.txt with a greeting")
	r.app.key("Return")
	r.waitLogN(t, events.RunStarted, 3, true, 60*time.Second)

	_, db := r.finish(t, "newchat-end.png")
	wantNewChat(t, db, "Write hello.txt with a greeting", "the model change", ws1, writerModel)
}

// TestDesktopANewChatFromAFolderChangeKeepsTheModelTheHeaderShows: with a chat of one model
// open while new chats took another, picking another folder and "Start a new chat" gives a
// chat in that folder with the open chat's model, the one the header showed.
func TestDesktopANewChatFromAFolderChangeKeepsTheModelTheHeaderShows(t *testing.T) {
	r, ws1, ws2 := twoFolders(t)
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
	wantNewChat(t, db, "Say where the new one is", "the folder change", ws2, folderModel)
}

// A chat owns its folder: in the real window, by keyboard only, a chat changed to another
// folder writes there from its next message on; a new chat takes the folder last used; and an
// old chat opened again (with Ctrl+K) writes in its own folder, whatever new chats take.
func TestDesktopAChatWritesOnlyInTheFolderTheHeaderShowsForIt(t *testing.T) {
	layoutCanMatter(t)
	r, ws1, ws2 := twoFolders(t)
	wroteIn(t, "the first message", ws1, ws1, ws2)

	// a folder that does not exist, inside one that does not either (so not offered to be
	// created): the window's error line says so (it has a Dismiss button), and the chat stays
	// where it was
	r.typeFolder(filepath.Join(t.TempDir(), "no", "missing"))
	r.waitChangeThisChat()
	r.app.key("Return")
	r.app.waitControl(rolePushButton, "Dismiss", 20*time.Second)
	r.app.screenshot("chats-not-a-folder.png")

	// Ctrl+O, a typed path, Enter: the window asks what the folder is for; Enter changes this
	// chat, and the sentence about the folder that could not be used goes
	r.typeFolder(ws2)
	r.waitChangeThisChat()
	r.app.screenshot("chats-folder-dialog.png")
	r.app.key("Return")
	r.waitHeaderFolder(ws2)
	r.waitComposerFocus()
	r.sendAndWait(t, "And now?", 2)
	wroteIn(t, "the chat moved to the second folder", ws2, ws1, ws2)
	if errs := r.app.controls(rolePushButton, "Dismiss"); len(errs) != 0 {
		t.Errorf("the error line about the missing folder is still there once a folder was picked and used (%s)", r.app.screenshot("chats-moved.png"))
	}
	r.app.screenshot("chats-moved.png")

	// a new chat (Ctrl+N) in the first folder again: no question, there is no chat to change;
	// what was typed in the first chat and not sent stays with it
	r.app.typeText(unsentDraft)
	r.newChatFrom("And now?")
	for _, when := range []string{"as it opens", "a moment later"} {
		if carried := r.app.textsWith(unsentDraft); len(carried) != 0 {
			t.Errorf("the new chat's box holds the first chat's unsent text %s: %q", when, carried)
		}
		settle()
	}
	r.typeFolder(ws1)
	r.waitHeaderFolder(ws1)
	r.sendAndWait(t, "A new one", 3)
	wroteIn(t, "the new chat", ws1, ws1, ws2)

	// the first chat, found with Ctrl+K, still writes in its own folder
	r.openAndType("ctrl+k", "Say where", "chats-search.png")
	r.app.key("Return")
	settle()
	r.app.screenshot("chats-reopened.png")
	if !r.app.says(unsentDraft) {
		t.Error("the first chat's unsent text did not come back with it")
	}
	r.app.key("ctrl+a")
	r.sendAndWait(t, "Once more", 4)
	wroteIn(t, "the first chat opened again", ws2, ws1, ws2)

	_, db := r.finish(t, "chats-folders-end.png")
	chats, err := db.ListChats()
	if err != nil || len(chats) != 2 {
		t.Fatalf("chats = %+v, %v; want two", chats, err)
	}
	for _, c := range chats {
		want := ws1
		if c.Title == "Say where you are" {
			want = ws2
		}
		if c.Workspace != want {
			t.Errorf("chat %q is stored in %s, want %s", c.Title, c.Workspace, want)
		}
		// the answer after the write, with thinking on and none thought, reads as the model
		// wrote it: the server's repeat of its first piece is not shown ("WroteWrote …")
		msgs, _ := db.Messages(c.ID)
		for _, m := range msgs {
			// a call the model wrote without thinking is a call alone at every turn (the
			// server's repeat of its first piece, "<tool_ca", is not shown as text)
			if len(m.ToolCalls) > 0 && m.Content != "" {
				t.Errorf("chat %q: a call's message holds the text %q", c.Title, m.Content)
			}
		}
		if answer := msgs[3]; answer.Role != store.RoleAssistant || answer.Content != "Wrote where.txt." {
			t.Errorf("chat %q: the first answer is %s %q, want the assistant's \"Wrote where.txt.\"", c.Title, answer.Role, answer.Content)
		}
	}
}

// A folder for new chats that is not there (a --workspace mistyped, a folder deleted since) is
// said as the window opens, not at the first message.
func TestDesktopAFolderThatIsNotThereIsSaidAsTheWindowOpens(t *testing.T) {
	missing := filepath.Join(t.TempDir(), "missing")
	r := startDesktopRunWith(t, writerModel, store.Settings{}, "", withArgs("--workspace", missing))
	if !r.app.says(missing + " is not a folder that exists") {
		t.Errorf("the window does not say that %s is not there (%s)", missing, r.app.screenshot("folder-missing-at-start.png"))
	}
	r.finish(t, "folder-missing-at-start.png")
}

// TestDesktopTheFolderPickerCreatesATypedFolderThatDoesNotExist: by keyboard only, a folder
// typed in the picker that does not exist, inside one that does, is offered to be created;
// Enter creates it, the header shows it, the keys are back in the message box, and the next
// message writes there.
func TestDesktopTheFolderPickerCreatesATypedFolderThatDoesNotExist(t *testing.T) {
	layoutCanMatter(t)
	r := startDesktopRunWith(t, writerModel, store.Settings{Think: "on"}, "")
	site := filepath.Join(t.TempDir(), "site")
	r.openField("ctrl+o")
	r.app.typeText(site)
	if !r.app.says("Create " + site + " and use it") {
		t.Fatalf("the picker does not offer to create %s (%s)", site, r.app.screenshot("folder-create-offer.png"))
	}
	r.app.screenshot("folder-create-offer.png")
	r.app.key("Return")
	r.waitHeaderFolder(site)
	if info, err := os.Stat(site); err != nil || !info.IsDir() {
		t.Fatalf("%s is not a folder after the picker created it: %v", site, err)
	}
	r.waitComposerFocus()
	r.sendAndWait(t, "Write hello.txt", 1)
	wantContent(t, filepath.Join(site, "hello.txt"), "hello from Prototyper\n")
	r.finish(t, "folder-created.png")
}

// TestDesktopTheFolderMenuListsTheStartFolderAndSaysWhenOneIsGone: the folder the app was
// started with stays in the folder menu after another was picked and the app started again
// elsewhere; one deleted since is listed as not found rather than offered silently.
func TestDesktopTheFolderMenuListsTheStartFolderAndSaysWhenOneIsGone(t *testing.T) {
	layoutCanMatter(t)
	r := startDesktopRunWith(t, writerModel, store.Settings{}, "")
	other := filepath.Join(t.TempDir(), "other-project")
	gone := filepath.Join(t.TempDir(), "gone-project")
	for _, d := range []string{other, gone} {
		if err := os.Mkdir(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	r.typeFolder(gone)
	r.waitHeaderFolder(gone)
	r.typeFolder(other)
	r.waitHeaderFolder(other)
	if err := os.Remove(gone); err != nil {
		t.Fatal(err)
	}
	start := r.workspace
	if err := r.app.closeWindow(15 * time.Second); err != nil {
		t.Fatalf("the app did not exit cleanly: %s", describeExit(err))
	}
	r.workspace = other // started elsewhere now
	r.relaunch(t, writerModel, "bridge-recent")
	r.openField("ctrl+o")
	if len(r.app.waitTexts(func(s string) bool { return strings.Contains(s, start) }, 20*time.Second)) == 0 {
		t.Errorf("the folder menu does not list %s, the folder the app was first started with (%s)", start, r.app.screenshot("recent-folders.png"))
	}
	if said := r.app.textsWith("Not found: moved or deleted"); len(said) != 1 {
		t.Errorf("the folder menu says %q of the folder deleted since, want it said once (%s)", said, r.app.screenshot("recent-folders.png"))
	}
	r.app.screenshot("recent-folders.png")
	r.app.key("Escape")
}

// wroteIn checks that where.txt was written in want and nowhere else of dirs, then removes it,
// so that the next message's file is told apart.
func wroteIn(t *testing.T, step, want string, dirs ...string) {
	t.Helper()
	for _, dir := range dirs {
		_, err := os.Stat(filepath.Join(dir, "where.txt"))
		switch {
		case dir == want && err != nil:
			t.Errorf("%s: where.txt is not in %s: %v", step, dir, err)
		case dir != want && err == nil:
			t.Errorf("%s: where.txt was written in %s, want only %s", step, dir, want)
		}
		_ = os.Remove(filepath.Join(dir, "where.txt"))
	}
}

// twoFolders starts the window with the folder model, whose first chat has answered in the
// start folder (ws1), and makes a second folder (ws2) beside it.
func twoFolders(t *testing.T) (r *desktopRun, ws1, ws2 string) {
	r = startDesktopRunWith(t, folderModel, store.Settings{}, "Say where you are")
	ws1, ws2 = r.workspace, filepath.Join(t.TempDir(), "second")
	if err := os.MkdirAll(ws2, 0o755); err != nil {
		t.Fatal(err)
	}
	r.waitLogN(t, events.RunFinished, 1, true, 60*time.Second)
	return r, ws1, ws2
}

// waitChangeThisChat waits until the question of what a folder picked for an open chat is for
// has the keyboard on "Change this chat", which Enter then presses (a loaded machine may show
// it after a key sent at once would have gone elsewhere).
func (r *desktopRun) waitChangeThisChat() {
	r.app.tb.Helper()
	r.app.waitFocus(rolePushButton, "Change this chat", 30*time.Second)
}

// firstChatAfterOneElsewhere starts a chat in the second folder ws2 (new chats go there
// since) and opens the first folder's chat again with Ctrl+K, keeping a screenshot (shot) of
// the search.
func (r *desktopRun) firstChatAfterOneElsewhere(t *testing.T, ws1, ws2, shot string) {
	t.Helper()
	r.app.key("ctrl+n")
	settle()
	r.typeFolder(ws2)
	r.waitHeaderFolder(ws2)
	r.sendAndWait(t, "A chat elsewhere", 2)
	r.openAndType("ctrl+k", "Say where", shot)
	r.app.key("Return")
	r.waitHeaderFolder(ws1)
}

// wantNewChat checks that db holds three chats, of which the one titled title (started after
// change) works in ws with model m.
func wantNewChat(t *testing.T, db *store.DB, title, change, ws string, m ollamatest.Model) {
	t.Helper()
	chats, err := db.ListChats()
	if err != nil || len(chats) != 3 {
		t.Fatalf("chats = %+v, %v; want three", chats, err)
	}
	for _, c := range chats {
		if c.Title == title {
			if c.Workspace != ws || c.Model != m.Name+":latest" && c.Model != m.Name {
				t.Errorf("the new chat works in %s with %s, want %s with %s", c.Workspace, c.Model, ws, m.Name)
			}
			return
		}
	}
	t.Errorf("no chat of the message sent after %s: %+v", change, chats)
}

// TestDesktopTheFolderMenuCreatesAgainTheChatsFolderThatWasDeleted: a chat whose folder was
// deleted says so when a message is sent; by keyboard, Ctrl+O and Enter on the folder listed as
// not found offer to create it again, as typing its path does; Enter creates it, the sentence
// goes at once, and the next message runs.
func TestDesktopTheFolderMenuCreatesAgainTheChatsFolderThatWasDeleted(t *testing.T) {
	layoutCanMatter(t)
	r := startDesktopRunWith(t, writerModel, store.Settings{Think: "on"}, "Write hello.txt with a greeting")
	r.waitFinished(t, 60*time.Second)
	if err := os.RemoveAll(r.workspace); err != nil {
		t.Fatal(err)
	}
	r.app.typeText("Write hello.txt with a greeting")
	r.app.key("Return")
	const gone = "does not exist (any more)"
	if said := r.app.waitTexts(func(s string) bool { return strings.Contains(s, gone) }, 20*time.Second); len(said) == 0 {
		t.Fatalf("a message sent in a chat whose folder is gone does not say so (%s)", r.app.screenshot("folder-gone-send.png"))
	}
	r.openField("ctrl+o")
	r.app.waitTexts(func(s string) bool { return strings.Contains(s, "Not found: moved or deleted") }, 20*time.Second)
	r.app.key("Return")
	offer := "Create " + r.workspace + " and use it"
	if said := r.app.waitTexts(func(s string) bool { return strings.Contains(s, offer) }, 20*time.Second); len(said) == 0 {
		t.Fatalf("Enter on the folder listed as not found does not offer %q (%s)", offer, r.app.screenshot("folder-gone-offer.png"))
	}
	r.app.screenshot("folder-gone-offer.png")
	r.app.key("Return")
	for deadline := time.Now().Add(20 * time.Second); ; time.Sleep(200 * time.Millisecond) {
		info, err := os.Stat(r.workspace)
		created := err == nil && info.IsDir()
		if created && len(r.app.textsWith(gone)) == 0 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("after Enter on the offer the folder is made: %v, and the window says %q (%s)",
				created, r.app.textsWith(gone), r.app.screenshot("folder-gone-created.png"))
		}
	}
	r.waitComposerFocus()
	r.app.key("ctrl+a", "BackSpace")
	r.sendAndWait(t, "Say where you are", 2) // the folder works again: the message runs
	if said := r.app.textsWith(gone); len(said) != 0 {
		t.Errorf("after the folder was made again, a message sent says %q (%s)", said, r.app.screenshot("folder-gone-sent-again.png"))
	}
}

// TestDesktopTheFolderMenuSaysWhyAFolderWhoseParentIsGoneCannotBeMadeAgain: when the folder a
// chat's folder was in is gone too, Enter on it in the folder menu says why in one sentence
// rather than doing nothing, and makes nothing.
func TestDesktopTheFolderMenuSaysWhyAFolderWhoseParentIsGoneCannotBeMadeAgain(t *testing.T) {
	layoutCanMatter(t)
	parent := filepath.Join(t.TempDir(), "projects")
	site := filepath.Join(parent, "site")
	if err := os.MkdirAll(site, 0o755); err != nil {
		t.Fatal(err)
	}
	r := startDesktopRunWith(t, writerModel, store.Settings{Think: "on"}, "Write hello.txt with a greeting", withArgs("--workspace", site))
	r.waitFinished(t, 60*time.Second)
	r.waitHeaderFolder(site)
	if err := os.RemoveAll(parent); err != nil {
		t.Fatal(err)
	}
	r.openField("ctrl+o")
	r.app.waitTexts(func(s string) bool { return strings.Contains(s, "Not found: moved or deleted") }, 20*time.Second)
	r.app.key("Return")
	why := site + " cannot be created again because " + parent + " is gone too: pick another folder, or create " + parent + " first."
	if said := r.app.waitTexts(func(s string) bool { return strings.Contains(s, why) }, 20*time.Second); len(said) == 0 {
		t.Fatalf("Enter on a gone folder whose parent is gone too does not say %q (%s)", why, r.app.screenshot("folder-parent-gone.png"))
	}
	r.app.screenshot("folder-parent-gone.png")
	if _, err := os.Stat(parent); err == nil {
		t.Errorf("%s was made", parent)
	}
	r.app.key("Escape")
}

// TestDesktopAMessageToAChatOfAnotherFolderMovesTheFolderTheWindowSaysNewChatsTake: with new
// chats going to a second folder, a message to a chat of the first makes the first the folder
// new chats take (the session follows the chat last written to). The window follows at once:
// the settings name that folder for their instructions, where they are saved, and a new chat
// shows it. They named the second folder until the app started again.
func TestDesktopAMessageToAChatOfAnotherFolderMovesTheFolderTheWindowSaysNewChatsTake(t *testing.T) {
	r, ws1, ws2 := twoFolders(t)
	r.firstChatAfterOneElsewhere(t, ws1, ws2, "follow-search.png")
	r.waitComposerFocus()
	r.sendAndWait(t, "And now?", 3)

	r.app.key("ctrl+comma")
	r.app.waitFocus(roleComboBox, "Model server", 30*time.Second)
	label := "Instructions for the model in " + ws1 + " ("
	if _, ok := r.app.waitSettingsFields([]string{label}, true, 10*time.Second); !ok {
		var named []string
		r.app.each(func(n a11yNode) {
			if strings.Contains(r.app.name(n), "Instructions") {
				named = append(named, fmt.Sprintf("%d:%q", r.app.role(n), r.app.name(n)))
			}
		})
		t.Errorf("the settings' instructions are not named for %s, the folder new chats take (%v): %s", ws1, named, r.app.screenshot("follow-settings.png"))
	}
	r.app.key("Escape")
	r.app.waitNoControl(rolePushButton, "Cancel", 10*time.Second)
	r.app.key("ctrl+n")
	r.waitComposerFocus()
	r.waitHeaderFolder(ws1)
	r.sendAndWait(t, "A new one", 4)
	_, db := r.finish(t, "follow-end.png")
	wantNewChat(t, db, "A new one", "a message to the first folder's chat", ws1, folderModel)
}
