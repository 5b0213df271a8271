package cli

import (
	"context"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

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

// oneCallModel is a model whose turn after the user's message makes call, and whose turn
// after the call's result says answer.
type oneCallModel struct {
	call   store.ToolCall
	answer string
}

func (oneCallModel) ContextLength(context.Context, string) (int, error) { return 0, nil }

func (m oneCallModel) Chat(_ context.Context, req model.Request, _ model.DeltaFunc) (model.Turn, error) {
	if req.Messages[len(req.Messages)-1].Role != store.RoleUser {
		return model.Turn{Content: m.answer, DoneReason: model.DoneStop}, nil
	}
	return model.Turn{DoneReason: model.DoneStop, ToolCalls: []store.ToolCall{m.call}}, nil
}

// deleteModel is a model whose one turn deletes the folder path.
func deleteModel(path string) oneCallModel {
	return oneCallModel{call: store.ToolCall{ID: "c1", Name: "delete_path",
		Args: []byte(`{"path":` + strconv.Quote(path) + `,"recursive":true}`)}, answer: "done"}
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
	agent := agentloop.Wire(db, deleteModel("build"), agentloop.EmitterFunc(func(events.Event) {}), agentloop.WireOptions{Workspace: ws})
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

// writeModel is a model whose one turn writes hello into the file path.
func writeModel(path string) oneCallModel {
	return oneCallModel{call: store.ToolCall{ID: "w1", Name: "write_file",
		Args: []byte(`{"path":` + strconv.Quote(path) + `,"content":"hello\n"}`)}, answer: "I wrote it."}
}

// After `prototyper undo`, `chats show` and the export say what the window says: the call's
// change was undone, and so does the run's answer; a redo makes them read done again.
func TestChatsShowSaysACallsChangeWasUndoneUntilARedo(t *testing.T) {
	_, dbPath, out := oneWriteRun(t)
	line := "The changes made here were undone: index.html."
	for _, step := range []struct{ redo, undone bool }{{false, true}, {true, false}} {
		var stdout, stderr strings.Builder
		if code := undoCommand(step.redo)(t.Context(), []string{"--db", dbPath, "--chat", out.ChatID}, IO{Out: &stdout, Err: &stderr}); code != ExitCompleted {
			t.Fatalf("exit %d\n%s%s", code, stdout.String(), stderr.String())
		}
		show := readOut(t, "chats", "show", out.ChatID, "--db", dbPath)
		md := readOut(t, "chats", "export", out.ChatID, "--db", dbPath)
		for name, text := range map[string]string{"show": show, "export": md} {
			if got := strings.Contains(text, "undone since") && strings.Contains(text, line); got != step.undone {
				t.Errorf("%s after redo=%v: reads undone %v, want %v:\n%s", name, step.redo, got, step.undone, text)
			}
		}
	}
}

// `prototyper redo` follows the window's rule: an undo of a version of the chat put aside by
// an edit is not taken back, and the refusal says how to get it back; that version shown
// again, it is.
func TestRedoRefusesAnUndoOfAVersionNotShownUntilItIsShownAgain(t *testing.T) {
	ws, dbPath, out := oneWriteRun(t)
	command := func(redo bool) (int, string) {
		var stdout, stderr strings.Builder
		code := undoCommand(redo)(t.Context(), []string{"--db", dbPath, "--chat", out.ChatID}, IO{Out: &stdout, Err: &stderr})
		return code, stdout.String() + stderr.String()
	}
	if code, said := command(false); code != ExitCompleted {
		t.Fatalf("undo: exit %d\n%s", code, said)
	}
	// the first message edited: its version, with the run, is put aside
	db, err := store.Open(dbPath, store.Options{})
	if err != nil {
		t.Fatal(err)
	}
	msgs, _ := db.Messages(out.ChatID)
	if _, err := db.ForkAt(out.ChatID, msgs[0].ID); err != nil {
		t.Fatal(err)
	}
	db.Close()

	code, said := command(true)
	if code != ExitFailed || !strings.Contains(said, "is of a version of this chat that is not shown; show that version in the window") {
		t.Errorf("redo with the version put aside: exit %d, said %q; want it refused, saying why", code, said)
	}
	if _, err := os.Stat(filepath.Join(ws, "index.html")); !os.IsNotExist(err) {
		t.Fatalf("index.html after the refused redo: %v, want it still gone", err)
	}

	db, err = store.Open(dbPath, store.Options{})
	if err != nil {
		t.Fatal(err)
	}
	if err := db.ShowVersion(out.ChatID, "", msgs[0].ID); err != nil {
		t.Fatal(err)
	}
	db.Close()
	if code, said := command(true); code != ExitCompleted {
		t.Fatalf("redo with the version shown again: exit %d\n%s", code, said)
	}
	if got, err := os.ReadFile(filepath.Join(ws, "index.html")); err != nil || string(got) != "hello\n" {
		t.Errorf("index.html after the redo: %q, %v", got, err)
	}
}

// oneWriteRun makes a chat in a database of its own whose one run wrote index.html in its
// workspace, and closes the database: a command may open it.
func oneWriteRun(t *testing.T) (ws, dbPath string, out agentloop.Outcome) {
	t.Helper()
	ws, dbPath = t.TempDir(), filepath.Join(t.TempDir(), "p.db")
	db, err := store.Open(dbPath, store.Options{})
	if err != nil {
		t.Fatal(err)
	}
	agent := agentloop.Wire(db, writeModel("index.html"), agentloop.EmitterFunc(func(events.Event) {}), agentloop.WireOptions{Workspace: ws})
	out, err = agent.RunOnce(t.Context(), "", "write", agentloop.RunOptions{Model: "m", Approve: agentloop.ApproveAuto, Workspace: ws})
	agent.Shutdown(t.Context())
	db.Close()
	if err != nil {
		t.Fatal(err)
	}
	return ws, dbPath, out
}
