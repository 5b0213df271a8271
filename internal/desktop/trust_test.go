package desktop

import (
	"os"
	"path/filepath"
	"testing"
	"time"

	"prototyper/internal/cli"
	"prototyper/internal/testenv"
)

func waitExists(t *testing.T, path string) {
	t.Helper()
	for deadline := time.Now().Add(20 * time.Second); ; time.Sleep(20 * time.Millisecond) {
		if _, err := os.Stat(path); err == nil {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("%s was not made within 20 s", path)
		}
	}
}

func TestTheWindowAsksOnceAboutAFoldersOwnServersAndStartsThemWhenAllowed(t *testing.T) {
	ws := t.TempDir()
	marker := filepath.Join(t.TempDir(), "marker")
	testenv.WorkspaceMarkerServer(t, ws, marker)
	db := filepath.Join(t.TempDir(), "p.db")
	d, closeDesk := openTestDesktop(t, cli.DesktopOptions{Common: cli.Common{DB: db, Ollama: "http://127.0.0.1:9"}, Workspace: ws})

	asked, err := d.WorkspaceServersToAsk("", false)
	if err != nil || asked == nil || asked.Workspace != ws || len(asked.Servers) != 1 {
		t.Fatalf("WorkspaceServersToAsk = %+v, %v; want the folder's one server", asked, err)
	}
	if _, err := os.Stat(marker); err == nil {
		t.Fatal("the folder's server ran before the user answered")
	}
	if err := d.RefuseWorkspaceServers(ws, asked.Hash); err != nil {
		t.Fatal(err)
	}
	if again, _ := d.WorkspaceServersToAsk(ws, false); again != nil {
		t.Errorf("asked again after Don't allow: %+v", again)
	}
	review, _ := d.WorkspaceServersToAsk(ws, true)
	if review == nil || review.Hash != asked.Hash {
		t.Fatalf("the review from the settings = %+v; want the refused file", review)
	}
	if err := d.AllowWorkspaceServers(ws, review.Hash); err != nil {
		t.Fatal(err)
	}
	waitExists(t, marker)
	if again, _ := d.WorkspaceServersToAsk(ws, true); again != nil {
		t.Errorf("asked again after Allow: %+v", again)
	}
	closeDesk()

	// another start: allowed as the file is, asked again once it changed
	changed := filepath.Join(t.TempDir(), "changed")
	testenv.WorkspaceMarkerServer(t, ws, changed)
	d, _ = openTestDesktop(t, cli.DesktopOptions{Common: cli.Common{DB: db, Ollama: "http://127.0.0.1:9"}, Workspace: ws})
	if asked, _ := d.WorkspaceServersToAsk(ws, false); asked == nil || asked.Hash == review.Hash {
		t.Errorf("after the file changed WorkspaceServersToAsk = %+v; want the changed file", asked)
	}
	if _, err := os.Stat(changed); err == nil {
		t.Error("the changed file's server ran before the user answered")
	}
}
