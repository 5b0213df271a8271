package desktop

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"prototyper/internal/cli"
	"prototyper/store"
	"prototyper/tools"
)

func TestOpenPathOpensOnlyWhatIsInsideTheChatsWorkspace(t *testing.T) {
	ws, outside := t.TempDir(), t.TempDir()
	os.WriteFile(filepath.Join(ws, "index.html"), []byte("<h1>hi</h1>"), 0o644)
	os.WriteFile(filepath.Join(outside, "secret.txt"), []byte("no"), 0o644)
	os.Symlink(filepath.Join(outside, "secret.txt"), filepath.Join(ws, "link"))
	record := stubOpener(t)

	d, _ := openTestDesktop(t, cli.DesktopOptions{Workspace: ws})
	chat, err := d.NewChat()
	if err != nil {
		t.Fatal(err)
	}
	if err := d.OpenPath(chat.ID, "index.html", false); err != nil {
		t.Fatal(err)
	}
	if err := d.OpenPath(chat.ID, "index.html", true); err != nil {
		t.Fatal(err)
	}
	for _, bad := range []string{"../" + filepath.Base(outside) + "/secret.txt", "link", "/etc/passwd", "missing.txt"} {
		if err := d.OpenPath(chat.ID, bad, false); err == nil {
			t.Errorf("OpenPath(%q) opened something", bad)
		}
	}
	real, _ := filepath.EvalSymlinks(ws)
	waitOpened(t, record, filepath.Join(real, "index.html"), real)
}

// stubOpener makes the opener a script that notes each path it is asked to open, in the file
// it returns.
func stubOpener(t *testing.T) string {
	t.Helper()
	record := filepath.Join(t.TempDir(), "opened")
	script := filepath.Join(t.TempDir(), "opener")
	os.WriteFile(script, []byte("#!/bin/sh\necho \"$1\" >> "+record+"\n"), 0o755)
	old := opener
	opener = script
	t.Cleanup(func() { opener = old })
	return record
}

// waitOpened waits until the opener was asked to open exactly want, in any order.
func waitOpened(t *testing.T, record string, want ...string) {
	t.Helper()
	slices.Sort(want)
	deadline := time.Now().Add(5 * time.Second)
	for {
		got, _ := os.ReadFile(record)
		lines := strings.Fields(string(got))
		slices.Sort(lines)
		if slices.Equal(lines, want) {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("opened %q, want %q", got, want)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// A file a run wrote opens in the folder the run wrote it in, also once the chat has moved to
// another folder that holds a file of the same name; and the card of each call that wrote the
// name opens the file in that call's folder, once a later run wrote the name in the other.
func TestOpenPathOpensAFileInTheFolderItsRunWroteItIn(t *testing.T) {
	first, second := t.TempDir(), t.TempDir()
	os.WriteFile(filepath.Join(first, "index.html"), []byte("first"), 0o644)
	os.WriteFile(filepath.Join(second, "index.html"), []byte("second"), 0o644)
	record := stubOpener(t)

	d, _ := openTestDesktop(t, cli.DesktopOptions{Workspace: first})
	chat, err := d.NewChat()
	if err != nil {
		t.Fatal(err)
	}
	if _, err := d.db.StartToolCall(store.ToolCallRecord{ID: "c1", ChatID: chat.ID, RunID: "r1", Name: "write_file",
		Workspace: first, Pending: true}, []tools.PathState{{Path: "index.html", Kind: tools.KindAbsent}}); err != nil {
		t.Fatal(err)
	}
	if _, err := d.SetChatWorkspace(chat.ID, second); err != nil {
		t.Fatal(err)
	}
	if err := d.OpenPath(chat.ID, "index.html", false); err != nil {
		t.Fatal(err)
	}
	real, _ := filepath.EvalSymlinks(first)
	waitOpened(t, record, filepath.Join(real, "index.html"))

	// a run in the second folder writes the same name: each call's card opens its own file
	if _, err := d.db.StartToolCall(store.ToolCallRecord{ID: "c2", ChatID: chat.ID, RunID: "r2", Name: "write_file",
		Workspace: second, Pending: true}, []tools.PathState{{Path: "index.html", Kind: tools.KindAbsent}}); err != nil {
		t.Fatal(err)
	}
	if err := d.OpenCallPath(chat.ID, "c1", "index.html", false); err != nil {
		t.Fatal(err)
	}
	if err := d.OpenCallPath(chat.ID, "c2", "index.html", true); err != nil {
		t.Fatal(err)
	}
	realSecond, _ := filepath.EvalSymlinks(second)
	waitOpened(t, record, filepath.Join(real, "index.html"), filepath.Join(real, "index.html"), realSecond)

	// the review names both files; each opens its own, and a folder the chat did not change
	// the file in is refused
	if err := d.OpenChangedPath(chat.ID, first, "index.html", false); err != nil {
		t.Fatal(err)
	}
	if err := d.OpenChangedPath(chat.ID, second, "index.html", false); err != nil {
		t.Fatal(err)
	}
	waitOpened(t, record, filepath.Join(real, "index.html"), filepath.Join(real, "index.html"), realSecond,
		filepath.Join(real, "index.html"), filepath.Join(realSecond, "index.html"))
	if err := d.OpenChangedPath(chat.ID, t.TempDir(), "index.html", false); err == nil || !strings.Contains(err.Error(), "changed no index.html") {
		t.Fatalf("a folder the chat did not change index.html in: %v", err)
	}
}
