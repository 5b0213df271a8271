package tests

import (
	"strings"
	"testing"
	"time"

	"prototyper/store"
)

// contextCapField is the start of the settings' context cap field's accessible name.
const contextCapField = "Longest context sent to the model"

// focusField gives the keyboard focus to the one field (not its label) whose accessible name
// begins with prefix, whatever its role: WebKit names a number field's role as it likes.
func (a *desktopApp) focusField(prefix string) {
	a.tb.Helper()
	var found []a11yNode
	var roles []a11yRole
	a.each(func(n a11yNode) {
		if r := a.role(n); strings.HasPrefix(a.name(n), prefix) && r != roleLabel {
			found, roles = append(found, n), append(roles, r)
		}
	})
	if len(found) != 1 {
		a.tb.Fatalf("%d fields named %q… (roles %v), want one", len(found), prefix, roles)
	}
	var ok bool
	if err := a.a11yBus().Object(found[0].Dest, found[0].Path).Call(atspiComponent+".GrabFocus", 0).Store(&ok); err != nil || !ok {
		a.tb.Fatalf("focus %q: %v (done: %v)", prefix, err, ok)
	}
}

// roleLabel is ATSPI_ROLE_LABEL.
const roleLabel a11yRole = 29

// TestDesktopTheSettingsSaveNoContextCapUntilTheUserTypesOne: the settings saved as they
// opened keep no context cap (the context is then chosen from free memory); a cap typed equal
// to the default is saved as a cap.
func TestDesktopTheSettingsSaveNoContextCapUntilTheUserTypesOne(t *testing.T) {
	save := func(t *testing.T, typed string) store.Settings {
		r := startDesktopRunWith(t, writerModel, store.Settings{}, "")
		r.app.key("ctrl+comma")
		r.app.waitFocus(roleComboBox, "Model server", 30*time.Second)
		r.app.focusField(contextCapField)
		if typed != "" {
			r.app.typeText(typed)
		}
		// Enter in the field saves the dialog
		r.app.key("Return")
		return r.savedSettings(t, "e2e-settings-context-cap.png")
	}
	t.Run("nothing typed", func(t *testing.T) {
		if s := save(t, ""); s.ContextCap != 0 {
			t.Errorf("the settings saved as they opened hold a context cap of %d; want none", s.ContextCap)
		}
	})
	t.Run("the default typed", func(t *testing.T) {
		if s := save(t, "16384"); s.ContextCap != store.DefaultContextCap {
			t.Errorf("16384 typed was saved as a cap of %d", s.ContextCap)
		}
	})
	t.Run("a slip of the keyboard", func(t *testing.T) {
		r := startDesktopRunWith(t, writerModel, store.Settings{}, "")
		r.app.key("ctrl+comma")
		r.app.waitFocus(roleComboBox, "Model server", 30*time.Second)
		r.app.focusField(contextCapField)
		r.app.typeText("1638416384")
		r.app.key("Return")
		// the panel stays open and says what to type; nothing is saved
		if !r.app.says("must be between 1,024 and 1,048,576 tokens") {
			t.Error("a context cap of 1638416384 typed and saved: the panel does not say what the cap may be")
		}
		r.app.waitControl(rolePushButton, "Cancel", 5*time.Second)
		_, db := r.finish(t, "e2e-settings-context-cap-slip.png")
		if s, err := db.Settings(); err != nil || s.ContextCap != 0 {
			t.Errorf("a context cap of 1638416384 typed: saved %d (%v); want nothing saved", s.ContextCap, err)
		}
	})
}
