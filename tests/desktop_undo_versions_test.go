package tests

import (
	"testing"
	"time"

	"prototyper/events"
	"prototyper/store"
)

// Undo and redo act on the version of the chat shown. A run creates index.html, Alt+Z removes
// it; the first message edited and resent, the new run's write is denied: no Redo is offered,
// and Alt+Y does not bring back the file the screen says was not created. Shown again, the
// earlier version offers its Redo, and Alt+Y brings the file back as its run left it.
func TestDesktopRedoActsOnlyOnTheVersionShown(t *testing.T) {
	r := startDesktopRunWith(t, previewShotModel, store.Settings{Think: "off", ToolApproval: map[string]string{"write_file": "ask"}}, "")
	r.app.typeText("Create index.html")
	r.app.key("Return")
	r.waitLog(t, events.ToolApprovalRequest, true, 60*time.Second)
	r.app.key("alt+a")
	r.waitResumedFinished(t, 60*time.Second)
	r.wantFile(t, "index.html", blockPage, 0o644)
	r.app.waitControlNamed(rolePushButton, "Undo the run that changed", 20*time.Second)

	r.app.key("alt+z")
	r.waitLog(t, events.Undo, true, 30*time.Second)
	r.wantFile(t, "index.html", "", 0)
	if !r.app.says("Undone: index.html removed.") {
		t.Errorf("the undo does not say what it removed (%s)", r.app.screenshot("redo-version-undone.png"))
	}
	r.app.waitControl(rolePushButton, "Redo", 20*time.Second)

	r.waitComposerFocus()
	r.app.key("Up")
	r.app.waitFocus(roleEntry, "Edit the message", 30*time.Second)
	r.app.key("ctrl+a")
	r.app.typeText("Create index.html again")
	r.app.key("Return")
	r.waitLogN(t, events.ToolApprovalRequest, 2, true, 60*time.Second)
	r.app.key("alt+d")
	r.waitLogN(t, events.RunFinished, 4, true, 60*time.Second)
	r.app.waitControl(rolePushButton, "Earlier version", 30*time.Second)
	r.app.waitNoControl(rolePushButton, "Redo", 20*time.Second)
	settle()
	r.app.screenshot("redo-version-edited.png")

	// Alt+Y offers nothing here. It shows nothing either, so words typed after it, once shown,
	// say it was handled: the press below goes to the page at once and could overtake the key.
	r.waitComposerFocus()
	r.app.key("alt+y")
	r.app.typeSeen("after Alt+Y")
	r.app.key("ctrl+a", "BackSpace")
	if !r.app.waitNoText("after Alt+Y", 20*time.Second) {
		t.Fatalf("the words typed in the box are not erased (%s)", r.app.screenshot("redo-version-marker.png"))
	}
	r.app.press("Earlier version")
	r.app.waitControl(rolePushButton, "Redo", 30*time.Second)
	r.wantFile(t, "index.html", "", 0)

	r.app.key("alt+y")
	r.waitLog(t, events.Redo, true, 30*time.Second)
	r.wantFile(t, "index.html", blockPage, 0o644)
	if !r.app.says("Redone: index.html as the run left it.") {
		t.Errorf("the redo does not say what it brought back (%s)", r.app.screenshot("redo-version-redone.png"))
	}
	_, db := r.finish(t, "redo-version-end.png")
	changes, _ := db.Changes(theOneChat(t, db).ID)
	if n := len(changes); n == 0 || changes[n-1].Kind != store.ChangeRedo {
		t.Errorf("changes %+v, want the one redo last, after the earlier version was shown", changes)
	}
}
