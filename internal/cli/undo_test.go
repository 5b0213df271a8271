package cli

import (
	"context"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"prototyper/agentloop"
	"prototyper/events"
	"prototyper/model"
	"prototyper/store"
	"prototyper/tools"
)

func TestTheApprovalPromptSaysWhenTheCallCannotSucceed(t *testing.T) {
	if got := previewText(&tools.Preview{Fails: `old_string was not found in "a.txt"`}); got != "This call cannot succeed as it is: old_string was not found in \"a.txt\"\n" {
		t.Errorf("prompt %q", got)
	}
}

func TestTheApprovalPromptShowsTheChangeItWouldMake(t *testing.T) {
	write := previewText(&tools.Preview{Path: "notes.md", Bytes: 15, Diff: "--- a/notes.md\n+++ b/notes.md\n@@ -1 +1,3 @@\n # Hello\n+\n+World\n"})
	if !strings.Contains(write, "This changes notes.md (15 bytes after)") || !strings.Contains(write, "+World") {
		t.Errorf("write preview:\n%s", write)
	}
	del := previewText(&tools.Preview{Path: "lib", Bytes: 3, NotUndoable: []string{"lib/big.bin"},
		Removes: []tools.Removal{{Path: "lib", Kind: tools.KindDir}, {Path: "lib/a.txt", Kind: tools.KindFile, Bytes: 3}}})
	for _, want := range []string{"This deletes 2 path(s), 3 bytes", "lib/a.txt (file, 3 bytes)", "lib/big.bin is too large to keep: this change cannot be undone"} {
		if !strings.Contains(del, want) {
			t.Errorf("delete preview lacks %q:\n%s", want, del)
		}
	}
	if previewText(nil) != "" {
		t.Error("a call without a preview shows nothing more")
	}
}

func TestOpenPathOpensOnlyWhatIsInsideTheChatsWorkspace(t *testing.T) {
	ws, outside := t.TempDir(), t.TempDir()
	os.WriteFile(filepath.Join(ws, "index.html"), []byte("<h1>hi</h1>"), 0o644)
	os.WriteFile(filepath.Join(outside, "secret.txt"), []byte("no"), 0o644)
	os.Symlink(filepath.Join(outside, "secret.txt"), filepath.Join(ws, "link"))
	record := stubOpener(t)

	d, _ := openTestDesktop(t, DesktopOptions{Workspace: ws})
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

	d, _ := openTestDesktop(t, DesktopOptions{Workspace: first})
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

// The line of `prototyper undo` says what it put back and what it removed (a file the run
// created), each name once, and the chat's earlier folder it did that in, as the window does.
func TestTheUndoLineSaysWhatWasRemovedAndInWhichFolder(t *testing.T) {
	for _, c := range []struct {
		res  agentloop.UndoResult
		want string
	}{
		{agentloop.UndoResult{Paths: []string{"a.txt"}}, "a.txt put back"},
		{agentloop.UndoResult{Paths: []string{"a.txt", "b.txt"}, Removed: []string{"b.txt"}}, "a.txt put back; b.txt removed"},
		{agentloop.UndoResult{Paths: []string{"a.txt", "a.txt"}, Elsewhere: []string{"/home/me/one"}, InChatFolder: true},
			"a.txt put back (in the chat's folder and in /home/me/one, its earlier folder)"},
	} {
		if got := undoneWhat(c.res); got != c.want {
			t.Errorf("undoneWhat(%+v) = %q, want %q", c.res, got, c.want)
		}
	}
}

// deleteModel is a model whose one turn deletes a folder.
type deleteModel struct{ path string }

func (deleteModel) ContextLength(context.Context, string) (int, error) { return 0, nil }

func (m deleteModel) Chat(_ context.Context, req model.Request, _ model.DeltaFunc) (model.Turn, error) {
	if req.Messages[len(req.Messages)-1].Role != store.RoleUser {
		return model.Turn{Content: "done", DoneReason: model.DoneStop}, nil
	}
	return model.Turn{DoneReason: model.DoneStop, ToolCalls: []store.ToolCall{{ID: "c1", Name: "delete_path",
		Args: []byte(`{"path":` + strconv.Quote(m.path) + `,"recursive":true}`)}}}, nil
}

// `prototyper undo --keep` of a deletion that held a file too large to keep puts the rest
// back and names that file as gone, in a sentence of its own.
func TestUndoKeepSaysWhichFileTooLargeToKeepIsGone(t *testing.T) {
	ws, dbPath := t.TempDir(), filepath.Join(t.TempDir(), "p.db")
	os.MkdirAll(filepath.Join(ws, "build"), 0o755)
	os.WriteFile(filepath.Join(ws, "build", "out.txt"), []byte("built\n"), 0o644)
	os.WriteFile(filepath.Join(ws, "build", "big.bin"), []byte(strings.Repeat("x", 200)), 0o644)
	db, err := store.Open(dbPath, store.Options{})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := db.UpdateSettings(func(s *store.Settings) error { s.CheckpointMaxBytes = 64; return nil }); err != nil {
		t.Fatal(err)
	}
	agent := agentloop.Wire(db, deleteModel{"build"}, agentloop.EmitterFunc(func(events.Event) {}), agentloop.WireOptions{Workspace: ws})
	out, err := agent.RunOnce(t.Context(), "", "clean", agentloop.RunOptions{Model: "m", Approve: agentloop.ApproveAuto, Workspace: ws})
	agent.Shutdown(t.Context())
	db.Close()
	if err != nil {
		t.Fatal(err)
	}

	var stdout, stderr strings.Builder
	code := undoCommand(false)(t.Context(), []string{"--db", dbPath, "--chat", out.ChatID, "--keep"}, IO{Out: &stdout, Err: &stderr})
	if code != ExitCompleted {
		t.Fatalf("undo --keep: exit %d\n%s%s", code, stdout.String(), stderr.String())
	}
	if !strings.Contains(stdout.String(), "build/big.bin is gone: it was too large (200 bytes) to keep when it was deleted, so it could not be put back.\n") {
		t.Errorf("undo --keep printed:\n%s", stdout.String())
	}
	if got, err := os.ReadFile(filepath.Join(ws, "build", "out.txt")); err != nil || string(got) != "built\n" {
		t.Errorf("build/out.txt: %q, %v", got, err)
	}
}
