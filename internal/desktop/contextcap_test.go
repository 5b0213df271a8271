package desktop

import (
	"testing"

	"prototyper/internal/cli"
	"prototyper/store"
)

// TestTheContextCapIsSavedAsTheUserSetItAndNoneStaysNone: the panel is shown no cap when none
// is set (the default beside it), so saving it back stores none; a cap typed equal to the
// default is a cap all the same.
func TestTheContextCapIsSavedAsTheUserSetItAndNoneStaysNone(t *testing.T) {
	d, _ := openTestDesktop(t, cli.DesktopOptions{Workspace: t.TempDir(), Model: "m", Common: cli.Common{Ollama: "http://127.0.0.1:1"}})
	shown, err := d.Config()
	if err != nil {
		t.Fatal(err)
	}
	if shown.ContextCap != 0 || shown.ContextCapDefault != store.DefaultContextCap {
		t.Fatalf("the panel is shown a cap of %d (default %d); want none, and the default beside it", shown.ContextCap, shown.ContextCapDefault)
	}
	if err := d.SaveSettings(shown.Settings); err != nil {
		t.Fatal(err)
	}
	if s, _ := d.db.Settings(); s.ContextCap != 0 {
		t.Errorf("saving the settings as shown stored a cap of %d; want none", s.ContextCap)
	}
	shown.ContextCap = store.DefaultContextCap
	if err := d.SaveSettings(shown.Settings); err != nil {
		t.Fatal(err)
	}
	if s, _ := d.db.Settings(); s.ContextCap != store.DefaultContextCap {
		t.Errorf("a cap of %d was stored as %d", store.DefaultContextCap, s.ContextCap)
	}
	if c, _ := d.Config(); c.ContextCap != store.DefaultContextCap {
		t.Errorf("the panel is shown a cap of %d; want the %d the user set", c.ContextCap, store.DefaultContextCap)
	}
}
