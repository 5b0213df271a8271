package tests

import (
	"os"
	"path/filepath"
	"testing"
	"time"

	"prototyper/events"
	"prototyper/store"
)

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

// TestDesktopClosingTheSettingsGivesTheKeysBackToTheMessageBox: after the settings are closed
// (Esc, Cancel, or Save, whose button is disabled while it saves and so loses the focus before
// the dialog goes), what the user types goes into the message box.
func TestDesktopClosingTheSettingsGivesTheKeysBackToTheMessageBox(t *testing.T) {
	layoutCanMatter(t)
	r := startDesktopRunWith(t, writerModel, store.Settings{Think: "on"}, "")
	for i, closeWith := range []string{"Save", "Escape", "Cancel"} {
		r.app.key("ctrl+comma")
		r.app.waitFocus(roleComboBox, "Model server", 30*time.Second)
		if closeWith == "Escape" {
			r.app.key("Escape")
		} else { // as a user does: the button gets the focus, then Enter
			r.app.focus(closeWith)
			r.app.waitFocus(rolePushButton, closeWith, 10*time.Second)
			r.app.key("Return")
		}
		r.app.waitNoControl(rolePushButton, "Save", 20*time.Second)
		typed := []string{"first words", " and more", " and the end"}[i]
		r.app.typeText(typed)
		r.app.waitNamedText("Message", 20*time.Second, typed)
	}
	r.app.key("Return")
	r.waitLogN(t, events.RunFinished, 1, true, 60*time.Second)
	r.finish(t, "settings-closed.png")
}

// TestDesktopClosingTheSettingsBeforeAFirstModelGivesTheKeysToTheOffer: with no model yet the
// message box cannot be used; after the settings close, the first-model offer has the keys
// (its recommended Pull), and Enter there pulls, as it did before the settings opened.
func TestDesktopClosingTheSettingsBeforeAFirstModelGivesTheKeysToTheOffer(t *testing.T) {
	layoutCanMatter(t)
	t.Setenv("OLLAMA_MODELS", t.TempDir()) // no model on the server the app starts
	r := launchOnEmptyAddress(t, desktopBinary(t), ollamaOnPath(t))
	r.waitServer(t)
	r.app.waitForPage("first-model-settings.png", 30*time.Second)
	r.app.focusWindow()
	r.app.waitFocus(rolePushButton, "Pull ", 60*time.Second)
	r.app.key("ctrl+comma")
	r.app.waitFocus(roleComboBox, "Model server", 30*time.Second)
	r.app.key("Escape")
	r.app.waitNoControl(rolePushButton, "Save", 20*time.Second)
	r.app.waitFocus(rolePushButton, "Pull ", 20*time.Second)
	r.app.key("Return")
	r.waitLog(t, events.PullProgress, true, 30*time.Second)
	r.app.screenshot("first-model-settings.png")
}
