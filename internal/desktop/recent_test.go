package desktop

import (
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"testing"

	"prototyper/internal/cli"
	"prototyper/store"
)

// The folder menu's recent folders: the one the app was started with first, each folder
// picked since in front of it, at most store.MaxRecentFolders, kept across starts, and a
// folder gone since said to be missing.
func TestRecentFoldersStartWithTheStartFolderAndSayWhichAreGone(t *testing.T) {
	db := filepath.Join(t.TempDir(), "prototyper.db")
	start := t.TempDir()
	d, closeDesk := openTestDesktop(t, cli.DesktopOptions{Common: cli.Common{Ollama: "127.0.0.1:1", DB: db}, Workspace: start})
	var picked []string
	for i := range store.MaxRecentFolders + 2 {
		dir := filepath.Join(t.TempDir(), fmt.Sprint("f", i))
		if err := os.Mkdir(dir, 0o755); err != nil {
			t.Fatal(err)
		}
		if _, err := d.UseFolder(dir); err != nil {
			t.Fatal(err)
		}
		picked = append(picked, dir)
	}
	if _, err := d.UseFolder(start); err != nil { // picked again: first, once
		t.Fatal(err)
	}
	if err := os.Remove(picked[len(picked)-1]); err != nil {
		t.Fatal(err)
	}
	closeDesk()

	d, _ = openTestDesktop(t, cli.DesktopOptions{Common: cli.Common{Ollama: "127.0.0.1:1", DB: db}})
	c, err := d.Config()
	if err != nil {
		t.Fatal(err)
	}
	var paths []string
	for _, f := range c.RecentFolders {
		paths = append(paths, f.Path)
	}
	want := []string{start}
	for i := len(picked) - 1; len(want) < store.MaxRecentFolders; i-- {
		want = append(want, picked[i])
	}
	if !slices.Equal(paths, want) {
		t.Fatalf("recent folders %v, want %v", paths, want)
	}
	for _, f := range c.RecentFolders {
		if gone := f.Path == picked[len(picked)-1]; f.Missing != gone {
			t.Errorf("%s: missing %v, want %v", f.Path, f.Missing, gone)
		}
	}
}

// The list of chats shown or hidden is saved for the next start; a value the window does not
// have is refused.
func TestTheSidebarChoiceIsKeptAcrossStarts(t *testing.T) {
	db := filepath.Join(t.TempDir(), "prototyper.db")
	d, closeDesk := openTestDesktop(t, cli.DesktopOptions{Common: cli.Common{Ollama: "127.0.0.1:1", DB: db}})
	if err := d.SetSidebar(store.SidebarHidden); err != nil {
		t.Fatal(err)
	}
	if err := d.SetSidebar("sideways"); err == nil {
		t.Error("a sidebar choice the window does not have was saved")
	}
	closeDesk()
	d, _ = openTestDesktop(t, cli.DesktopOptions{Common: cli.Common{Ollama: "127.0.0.1:1", DB: db}})
	if c, err := d.Config(); err != nil || c.Sidebar != store.SidebarHidden {
		t.Errorf("after a restart the sidebar is %q (%v), want hidden", c.Sidebar, err)
	}
}
