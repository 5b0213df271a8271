package tests

import (
	"encoding/json"
	"path/filepath"
	"strings"
	"testing"

	"prototyper/internal/ollamatest"
	"prototyper/store"
)

// TestCLIUndoPutsBackWhatARunWroteAndRedoTakesItBack: a real run overwrites hello.txt (mode
// 0600) through the real server; `prototyper undo` puts the user's file back as it was, mode
// included; `prototyper redo` takes the undo back; an undo of a file the user changed since is
// refused with one line per file and nothing changed, and --keep keeps the user's version.
func TestCLIUndoPutsBackWhatARunWroteAndRedoTakesItBack(t *testing.T) {
	srv := ollamatest.Get(t)
	ws, db := t.TempDir(), filepath.Join(t.TempDir(), "p.db")
	hello := filepath.Join(ws, "hello.txt")
	writeFile(t, hello, "my own hello\n", 0o600)
	_, errOut, code := cliRun(t, "run", "--ollama", srv.URL(), "--db", db, "--workspace", ws,
		"--model", writerModel.Name, "--approve", "auto", "Write hello.txt")
	if code != 0 {
		t.Fatalf("run: exit %d\n%s", code, errOut)
	}
	wantFile(t, hello, "hello from Prototyper\n", 0o600)

	list, _, _ := cliRun(t, "chats", "list", "--db", db, "--json")
	var chats []struct {
		ID string `json:"id"`
	}
	if err := json.Unmarshal([]byte(list), &chats); err != nil || len(chats) != 1 {
		t.Fatalf("chats list --json: %q, %v", list, err)
	}
	chat := chats[0].ID

	out, errOut, code := cliRun(t, "undo", "--db", db, "--chat", chat, "--json")
	if code != 0 {
		t.Fatalf("undo: exit %d\n%s", code, errOut)
	}
	var res struct {
		ChangeID string   `json:"changeId"`
		Reverts  []string `json:"reverts"`
		Paths    []string `json:"paths"`
	}
	if err := json.Unmarshal([]byte(out), &res); err != nil || len(res.Paths) != 1 || res.Paths[0] != "hello.txt" || len(res.Reverts) != 1 {
		t.Fatalf("undo --json printed %q (%v)", out, err)
	}
	wantFile(t, hello, "my own hello\n", 0o600)

	out, errOut, code = cliRun(t, "redo", "--db", db, "--chat", chat)
	if code != 0 || !strings.HasPrefix(out, "Redone: hello.txt put back.\n") {
		t.Fatalf("redo: exit %d\n%s%s", code, out, errOut)
	}
	wantFile(t, hello, "hello from Prototyper\n", 0o600)

	writeFile(t, hello, "edited after the run\n", 0o600)
	_, errOut, code = cliRun(t, "undo", "--db", db, "--chat", chat)
	if code != 1 || !strings.Contains(errOut, "hello.txt was changed after it was written") || !strings.Contains(errOut, "--keep") {
		t.Fatalf("undo of an edited file: exit %d, stderr:\n%s", code, errOut)
	}
	wantFile(t, hello, "edited after the run\n", 0o600)

	out, errOut, code = cliRun(t, "undo", "--db", db, "--chat", chat, "--keep")
	if code != 0 || !strings.Contains(out, "hello.txt.mine") {
		t.Fatalf("undo --keep: exit %d\n%s%s", code, out, errOut)
	}
	wantFile(t, hello, "my own hello\n", 0o600)
	if got := mustRead(hello + ".mine"); got != "edited after the run\n" {
		t.Errorf("the kept version holds %q", got)
	}
	if _, errOut, code = cliRun(t, "undo", "--db", db, "--chat", chat); code != 1 || !strings.Contains(errOut, "nothing to undo") {
		t.Errorf("a further undo: exit %d, stderr %q", code, errOut)
	}
}

// TestCLIUndoAfterTheChatMovedPutsBackTheFirstFoldersFile: a real run writes hello.txt in the
// chat's first folder; the chat then moves to another folder (from its next message on) that
// holds a hello.txt of its own. `prototyper undo` puts the first folder's file back, where
// the run wrote it, and leaves the new folder's file alone.
func TestCLIUndoAfterTheChatMovedPutsBackTheFirstFoldersFile(t *testing.T) {
	srv := ollamatest.Get(t)
	first, second, dbPath := t.TempDir(), t.TempDir(), filepath.Join(t.TempDir(), "p.db")
	writeFile(t, filepath.Join(first, "hello.txt"), "first folder's hello\n", 0o600)
	writeFile(t, filepath.Join(second, "hello.txt"), "second folder's hello\n", 0o644)
	_, errOut, code := cliRun(t, "run", "--ollama", srv.URL(), "--db", dbPath, "--workspace", first,
		"--model", writerModel.Name, "--approve", "auto", "Write hello.txt")
	if code != 0 {
		t.Fatalf("run: exit %d\n%s", code, errOut)
	}
	wantFile(t, filepath.Join(first, "hello.txt"), "hello from Prototyper\n", 0o600)

	db, err := store.Open(dbPath, store.Options{})
	if err != nil {
		t.Fatal(err)
	}
	chats, _ := db.ListChats()
	if len(chats) != 1 {
		t.Fatalf("%d chats, want 1", len(chats))
	}
	if _, err := db.UpdateChat(chats[0].ID, func(c *store.Chat) { c.Workspace = second }); err != nil {
		t.Fatal(err)
	}
	db.Close()

	out, errOut, code := cliRun(t, "undo", "--db", dbPath, "--chat", chats[0].ID)
	if code != 0 {
		t.Fatalf("undo: exit %d\n%s%s", code, out, errOut)
	}
	wantFile(t, filepath.Join(first, "hello.txt"), "first folder's hello\n", 0o600)
	wantFile(t, filepath.Join(second, "hello.txt"), "second folder's hello\n", 0o644)
}
