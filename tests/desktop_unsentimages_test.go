package tests

import (
	"bytes"
	"os"
	"testing"
	"time"

	"prototyper/events"
	"prototyper/store"
)

// TestDesktopAQueuedMessagesImageIsBackInTheBoxAfterTheAppWasKilled: a message with a pasted
// image, queued while a tool runs, then kill -9: the app opened again has the message's text and
// its image back in the box.
func TestDesktopAQueuedMessagesImageIsBackInTheBoxAfterTheAppWasKilled(t *testing.T) {
	r := queueAnImageWhileAToolRuns(t)
	// the queue's texts are kept as a list, with their images in the same commit: then kill -9
	waitFileHolds(t, r.db, 30*time.Second, []byte(`:["And this picture?"]`))
	r.kill(t)
	r.relaunch(t, seeingModel, "bridge-queued-image-killed")
	r.waitBoxHoldsTextAndImage(t, "And this picture?", "queued-image-after-kill.png")
	_, db := r.finish(t, "queued-image-after-kill.png")
	chat := theOneChat(t, db)
	if q, _ := db.QueuedImages(chat.ID); len(q) != 0 {
		t.Errorf("images still kept as queued after the restart: %d", len(q))
	}
	if d, _ := db.DraftImages(); len(d[chat.ID]) != 1 {
		t.Errorf("the box keeps %d images, want the queued message's one, once", len(d[chat.ID]))
	}
}

// TestDesktopAStopGivesAQueuedMessagesImageBackToTheBoxForGood: a message with a pasted image,
// queued while a tool runs, then Esc stops the run: the box has the message's text and image
// back, and keeps both across a kill -9.
func TestDesktopAStopGivesAQueuedMessagesImageBackToTheBoxForGood(t *testing.T) {
	r := queueAnImageWhileAToolRuns(t)
	r.app.key("Escape")
	r.waitBoxHoldsTextAndImage(t, "And this picture?", "stopped-queued-image.png")
	// given back as the chat's unsent text (a map's value, no longer a queue's list): then kill -9
	waitFileHolds(t, r.db, 30*time.Second, []byte(`":"And this picture?"`))
	r.kill(t)
	r.relaunch(t, seeingModel, "bridge-stopped-queued-image-killed")
	r.waitBoxHoldsTextAndImage(t, "And this picture?", "stopped-queued-image-after-kill.png")
	_, db := r.finish(t, "stopped-queued-image-after-kill.png")
	if d, _ := db.DraftImages(); len(d[theOneChat(t, db).ID]) != 1 {
		t.Errorf("the box keeps %d images, want the queued message's one, once", len(d[theOneChat(t, db).ID]))
	}
}

// TestDesktopAnImagePastedInTheBoxOutlivesAKill: text typed and an image pasted in a new chat's
// box, not sent, then kill -9: the app opened again has both in the box, and Enter sends them.
func TestDesktopAnImagePastedInTheBoxOutlivesAKill(t *testing.T) {
	r := startDesktopRunWith(t, seeingModel, store.Settings{Think: "on"}, "")
	r.app.key("ctrl+n")
	r.pasteImage(t, screenshotPNG(t))
	r.app.typeText("What is in this picture?")
	waitFileHolds(t, r.db, 30*time.Second, []byte(`"What is in this picture?"`), []byte("unsentImages"))
	r.kill(t)
	r.relaunch(t, seeingModel, "bridge-box-image-killed")
	r.waitBoxHoldsTextAndImage(t, "What is in this picture?", "box-image-after-kill.png")
	r.app.key("Return")
	r.waitFinished(t, 90*time.Second)
	_, db := r.finish(t, "box-image-sent.png")
	msgs, err := db.Messages(theOneChat(t, db).ID)
	if err != nil || len(msgs) != 2 || len(msgs[0].Images) != 1 || msgs[1].Content != "I see one image in your message." {
		t.Fatalf("messages %+v, %v; want the kept text sent with its image, and the answer that saw it", msgs, err)
	}
	if d, _ := db.DraftImages(); len(d) != 0 {
		t.Errorf("images kept in a box after they were sent: %d boxes", len(d))
	}
}

// TestDesktopWhatAStopGivesBackStaysWithItsChatWhenTheBoxMovedOn: a message with a pasted image,
// queued while a tool runs; Esc stops the run and Ctrl+N moves the box to a new chat at once,
// before the stop's end arrives: the stopped chat's box has the text and image when opened again,
// and the new chat's box stays empty.
func TestDesktopWhatAStopGivesBackStaysWithItsChatWhenTheBoxMovedOn(t *testing.T) {
	r := queueAnImageWhileAToolRuns(t)
	r.app.key("Escape", "ctrl+n") // one keystroke after the other: the stop's end comes after
	r.waitLog(t, events.RunFinished, true, 30*time.Second)
	r.openAndType("ctrl+k", "Wait a moment", "stopped-then-moved-search.png")
	r.app.key("Return")
	r.waitBoxHoldsTextAndImage(t, "And this picture?", "stopped-then-moved-back.png")
	// the box had the focus already: wait until the stopped chat is no longer shown
	r.newChatFrom("Wait a moment, with everything")
	r.waitComposerFocus()
	if n := len(r.app.controls(roleImage, "Image 1 to send")); n != 0 {
		t.Errorf("the new chat's box holds %d images given back to another chat (%s)", n, r.app.screenshot("stopped-then-moved-new.png"))
	}
	if said := r.app.waitTexts(func(s string) bool { return s == "And this picture?" }, time.Second); len(said) != 0 {
		t.Errorf("the new chat's box holds the text given back to another chat (%s)", r.app.screenshot("stopped-then-moved-new.png"))
	}
	_, db := r.finish(t, "stopped-then-moved.png")
	chat := theOneChat(t, db)
	if d, _ := db.Drafts(); d[chat.ID] != "And this picture?" || d[""] != "" {
		t.Errorf("unsent texts %q; want the stopped chat's alone", d)
	}
	if d, _ := db.DraftImages(); len(d) != 1 || len(d[chat.ID]) != 1 {
		t.Errorf("box images of %d chats; want the stopped chat's one image alone", len(d))
	}
}

// TestDesktopQuittingRightAfterSendingLosesNothing: a message with a pasted image sent with
// Enter and Ctrl+Q at once: the app opened again has it, sent in the chat or back in the box,
// its image with it.
func TestDesktopQuittingRightAfterSendingLosesNothing(t *testing.T) {
	r := startDesktopRunWith(t, seeingModel, store.Settings{Think: "on"}, "")
	r.app.key("ctrl+n")
	r.pasteImage(t, screenshotPNG(t))
	r.app.typeText("What is in this picture?")
	r.app.waitControl(roleImage, "Image 1 to send", 10*time.Second)
	r.app.key("Return", "ctrl+q")
	if err := r.app.waitExit(30 * time.Second); err != nil {
		t.Fatalf("after Ctrl+Q the app ended with %s", describeExit(err))
	}
	db, err := store.Open(r.db, store.Options{})
	if err != nil {
		t.Fatal(err)
	}
	chats, _ := db.ListChats()
	sent := false
	for _, c := range chats {
		msgs, _ := db.Messages(c.ID)
		sent = sent || (len(msgs) > 0 && msgs[0].Content == "What is in this picture?" && len(msgs[0].Images) == 1)
	}
	drafts, _ := db.Drafts()
	images, _ := db.DraftImages()
	db.Close()
	if sent {
		t.Log("the Go side took the message before the quit")
		return
	}
	t.Log("the quit came before the Go side took the message")
	if drafts[""] != "What is in this picture?" || len(images[""]) != 1 {
		t.Fatalf("the message was not sent, and the box keeps %q with %d images: lost", drafts[""], len(images[""]))
	}
	r.relaunch(t, seeingModel, "bridge-quit-after-send")
	r.waitBoxHoldsTextAndImage(t, "What is in this picture?", "quit-after-send.png")
	r.finish(t, "quit-after-send.png")
}

// kill ends the app with SIGKILL and waits for it to be gone.
func (r *desktopRun) kill(t *testing.T) {
	t.Helper()
	if err := r.app.cmd.Process.Kill(); err != nil {
		t.Fatal(err)
	}
	_ = r.app.waitExit(15 * time.Second)
}

// waitBoxHoldsTextAndImage waits for the message box to hold text and one image to send.
func (r *desktopRun) waitBoxHoldsTextAndImage(t *testing.T, text, shotName string) {
	t.Helper()
	if said := r.app.waitTexts(func(s string) bool { return s == text }, 20*time.Second); len(said) == 0 {
		t.Fatalf("the box does not hold %q after the restart (%s)", text, r.app.screenshot(shotName))
	}
	r.app.waitControl(roleImage, "Image 1 to send", 20*time.Second)
	r.app.waitControl(rolePushButton, "Remove image 1", 5*time.Second)
}

// waitFileHolds waits until the file at path holds each of needles: the database file of a
// running app, read as bytes (its lock forbids opening it), shows what a commit put there.
func waitFileHolds(t *testing.T, path string, timeout time.Duration, needles ...[]byte) {
	t.Helper()
	deadline := time.Now().Add(timeout)
	for {
		data, _ := os.ReadFile(path)
		missing := 0
		for _, n := range needles {
			if !bytes.Contains(data, n) {
				missing++
			}
		}
		if missing == 0 {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("%s does not hold what the app should have kept after %s", path, timeout)
		}
		time.Sleep(100 * time.Millisecond)
	}
}

// queueAnImageWhileAToolRuns starts a run whose tool waits, then sends "And this picture?" with
// a pasted image: the window shows it queued.
func queueAnImageWhileAToolRuns(t *testing.T) *desktopRun {
	t.Helper()
	settings := store.Settings{Think: "on", ToolApproval: map[string]string{"*": "auto"}}
	r := startDesktopRunWith(t, seeingModel, settings, "Wait a moment, with everything", withArgs("--mcp-config", mcpConfigFile(t)))
	r.waitLog(t, events.ToolCall, true, 90*time.Second)
	r.pasteImage(t, screenshotPNG(t))
	r.app.typeText("And this picture?")
	r.app.key("Return")
	r.app.waitControl(rolePushButton, "Take back the queued message", 10*time.Second)
	return r
}
