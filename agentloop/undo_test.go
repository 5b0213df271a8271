package agentloop

import (
	"context"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"

	"prototyper/events"
	"prototyper/model"
	"prototyper/store"
	"prototyper/tools"
)

// undoBench is an agent on the workspace tools of a real folder, whose model makes the calls
// each test gives it, one batch per run.
type undoBench struct {
	t    testing.TB
	dir  string
	a    *Agent
	db   *store.DB
	rec  *recorder
	chat string

	mu    sync.Mutex
	calls []store.ToolCall
}

func newUndoBench(t testing.TB, cfg func(*Config)) *undoBench {
	t.Helper()
	b := &undoBench{t: t, dir: t.TempDir()}
	m := &fakeModel{turn: func(req model.Request) model.Turn {
		if req.Messages[len(req.Messages)-1].Role == store.RoleUser {
			b.mu.Lock()
			defer b.mu.Unlock()
			return toolTurn(b.calls...)
		}
		return answer("done")
	}}
	b.a, b.db, b.rec = fakeHarness(t, m, func(c *Config) {
		c.Tools = WorkspaceTools(tools.WorkspaceOptions{})
		c.Workspace = b.dir
		if cfg != nil {
			cfg(c)
		}
	})
	return b
}

// run makes one run whose model calls calls; it returns the run's id.
func (b *undoBench) run(calls ...store.ToolCall) Outcome {
	b.t.Helper()
	b.mu.Lock()
	b.calls = calls
	b.mu.Unlock()
	out, err := b.a.RunOnce(b.t.Context(), b.chat, "go", RunOptions{Workspace: b.dir})
	if err != nil {
		b.t.Fatal(err)
	}
	b.chat = out.ChatID
	return out
}

func (b *undoBench) write(rel, content string, mode fs.FileMode) {
	b.t.Helper()
	p := filepath.Join(b.dir, rel)
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		b.t.Fatal(err)
	}
	if err := os.WriteFile(p, []byte(content), mode); err != nil {
		b.t.Fatal(err)
	}
	if err := os.Chmod(p, mode); err != nil {
		b.t.Fatal(err)
	}
}

// want checks a file's content and mode; content "" with mode 0 means it must not exist.
func (b *undoBench) want(rel, content string, mode fs.FileMode) {
	b.t.Helper()
	fi, err := os.Lstat(filepath.Join(b.dir, rel))
	if mode == 0 {
		if !errors.Is(err, fs.ErrNotExist) {
			b.t.Fatalf("%s exists (%v), want it gone", rel, err)
		}
		return
	}
	if err != nil {
		b.t.Fatalf("%s: %v", rel, err)
	}
	if fi.Mode().Perm() != mode {
		b.t.Errorf("%s has mode %v, want %v", rel, fi.Mode().Perm(), mode)
	}
	if fi.IsDir() {
		return
	}
	got, _ := os.ReadFile(filepath.Join(b.dir, rel))
	if string(got) != content {
		b.t.Errorf("%s holds %q, want %q", rel, got, content)
	}
}

func (b *undoBench) undo(opts UndoOptions) UndoResult {
	b.t.Helper()
	res, err := b.a.Undo(b.t.Context(), b.chat, opts)
	if err != nil {
		b.t.Fatalf("undo: %v", err)
	}
	return res
}

func (b *undoBench) redo() UndoResult {
	b.t.Helper()
	res, err := b.a.Redo(b.t.Context(), b.chat, UndoOptions{})
	if err != nil {
		b.t.Fatalf("redo: %v", err)
	}
	return res
}

// wantNothingToUndo checks that an undo with opts is refused as nothing to undo; what names
// that undo in a failure.
func (b *undoBench) wantNothingToUndo(opts UndoOptions, what string) {
	b.t.Helper()
	if _, err := b.a.Undo(b.t.Context(), b.chat, opts); !errors.Is(err, ErrNothingToUndo) {
		b.t.Errorf("%s: %v, want nothing to undo", what, err)
	}
}

// startAgain starts an agent anew over the bench's store and folder, as the app does after it
// died: it finishes the undos the app died in. rec hears what it tells the window.
func (b *undoBench) startAgain(rec *recorder) *Agent {
	b.t.Helper()
	again := NewAgent(Config{Store: b.db, Emitter: rec, Tools: WorkspaceTools(tools.WorkspaceOptions{}), Workspace: b.dir, DefaultModel: "fake"})
	b.t.Cleanup(func() { _ = again.Shutdown(context.Background()) })
	if err := again.FinishInterrupted(b.t.Context()); err != nil {
		b.t.Fatal(err)
	}
	return again
}

func writeCall(id, path, content string) store.ToolCall {
	return tc(id, "write_file", `{"path":`+quote(path)+`,"content":`+quote(content)+`}`)
}

func quote(s string) string { return `"` + strings.NewReplacer(`"`, `\"`, "\n", `\n`).Replace(s) + `"` }

func TestUndoRemovesACreatedFileAndTheFoldersMadeForIt(t *testing.T) {
	b := newUndoBench(t, nil)
	b.run(writeCall("c1", "src/app/main.go", "package main\n"))
	b.want("src/app/main.go", "package main\n", 0o644)
	if cps := ofType(b.rec.events(), events.Checkpoint); len(cps) != 1 || len(cps[0].Paths) != 3 {
		t.Fatalf("checkpoint events %+v, want one naming src, src/app and the file", cps)
	}
	res := b.undo(UndoOptions{})
	b.want("src", "", 0)
	if len(res.Paths) != 3 || len(res.Removed) != 3 {
		t.Errorf("undo put back %v (removed %v), want the file and its two folders, each removed", res.Paths, res.Removed)
	}
	b.redo()
	b.want("src/app/main.go", "package main\n", 0o644)
}

func TestUndoPutsBackOverwrittenEditedAndDeletedFilesWithTheirModes(t *testing.T) {
	b := newUndoBench(t, nil)
	b.write("run.sh", "#!/bin/sh\necho old\n", 0o755)
	b.write("notes.md", "alpha\nbeta\n", 0o600)
	b.write("secret.txt", "keep me\n", 0o640)
	b.run(
		writeCall("c1", "run.sh", "#!/bin/sh\necho new\n"),
		tc("c2", "edit_file", `{"path":"notes.md","old_string":"beta","new_string":"gamma"}`),
		tc("c3", "delete_path", `{"path":"secret.txt"}`),
		writeCall("c4", "run.sh", "#!/bin/sh\necho newer\n"), // the same path twice: one pre-image
	)
	b.want("run.sh", "#!/bin/sh\necho newer\n", 0o755)
	b.want("notes.md", "alpha\ngamma\n", 0o600)
	b.want("secret.txt", "", 0)
	changes, _ := b.db.Changes(b.chat)
	if len(changes) != 1 || len(changes[0].Paths) != 3 {
		t.Fatalf("changes %+v, want one run with three paths, each once", changes)
	}
	b.undo(UndoOptions{})
	b.want("run.sh", "#!/bin/sh\necho old\n", 0o755)
	b.want("notes.md", "alpha\nbeta\n", 0o600)
	b.want("secret.txt", "keep me\n", 0o640)
}

func TestUndoBringsBackAFolderTreeDeletedWithWhatItHeld(t *testing.T) {
	b := newUndoBench(t, nil)
	b.write("lib/a.txt", "a\n", 0o644)
	b.write("lib/deep/b.bin", "b\x00\x01", 0o600)
	if err := os.Symlink("a.txt", filepath.Join(b.dir, "lib", "link")); err != nil {
		t.Fatal(err)
	}
	if err := os.Chmod(filepath.Join(b.dir, "lib", "deep"), 0o700); err != nil {
		t.Fatal(err)
	}
	b.run(tc("c1", "delete_path", `{"path":"lib","recursive":true}`))
	b.want("lib", "", 0)
	b.undo(UndoOptions{})
	b.want("lib/a.txt", "a\n", 0o644)
	b.want("lib/deep/b.bin", "b\x00\x01", 0o600)
	b.want("lib/deep", "", 0o700)
	if target, err := os.Readlink(filepath.Join(b.dir, "lib", "link")); err != nil || target != "a.txt" {
		t.Errorf("link %q, %v; want it back, pointing at a.txt", target, err)
	}
}

func TestUndoRefusesAFileChangedSinceAndKeepsTheUsersVersionWhenAsked(t *testing.T) {
	b := newUndoBench(t, nil)
	b.write("notes.md", "v1\n", 0o644)
	b.run(writeCall("c1", "notes.md", "v2\n"))
	b.write("notes.md", "mine\n", 0o644) // the user edits it after the run

	_, err := b.a.Undo(t.Context(), b.chat, UndoOptions{})
	var ce *ConflictError
	if !errors.As(err, &ce) || len(ce.Conflicts) != 1 || ce.Conflicts[0].Path != "notes.md" {
		t.Fatalf("undo of a file edited since: %v, want a conflict naming notes.md", err)
	}
	if !strings.Contains(err.Error(), "changed after it was written") {
		t.Errorf("the refusal %q should say why", err)
	}
	b.want("notes.md", "mine\n", 0o644) // nothing changed

	res := b.undo(UndoOptions{Keep: true})
	b.want("notes.md", "v1\n", 0o644)
	b.want("notes.md.mine", "mine\n", 0o644)
	if len(res.Kept) != 1 || res.Kept[0] != "notes.md.mine" {
		t.Errorf("kept %v", res.Kept)
	}
	// the undo is itself a change: redo brings back what it replaced
	b.redo()
	b.want("notes.md", "mine\n", 0o644)
	b.want("notes.md.mine", "", 0)
}

// A user's version larger than a file the app keeps cannot be copied beside the restored one:
// Keep refuses, saying what to do, and writes nothing (it would overwrite that version).
func TestKeepMineRefusesAVersionTooLargeToKeepAndWritesNothing(t *testing.T) {
	b := newUndoBench(t, nil)
	b.write("notes.md", "v1\n", 0o644)
	b.run(writeCall("c1", "notes.md", "v2\n"))
	b.setCap(8)
	mine := "my long version, over the cap\n"
	b.write("notes.md", mine, 0o644)

	_, err := b.a.Undo(t.Context(), b.chat, UndoOptions{Keep: true})
	if err == nil || !strings.Contains(err.Error(), "cannot be kept beside") || !strings.Contains(err.Error(), "Overwrite mine") {
		t.Fatalf("keep of a version over the cap: %v, want a refusal that says what to do", err)
	}
	b.want("notes.md", mine, 0o644)
	b.want("notes.md.mine", "", 0)
	b.setCap(0) // under the default cap it is kept as before
	b.undo(UndoOptions{Keep: true})
	b.want("notes.md", "v1\n", 0o644)
	b.want("notes.md.mine", mine, 0o644)
}

// A call that fails without changing its file (an edit whose text is not there) is not a
// change of its run: its result says the run left the file as it was, and the chat's changes
// do not list it; a call of the same run that did change a file is listed.
func TestAFailedCallIsNotAChangeOfItsRun(t *testing.T) {
	b := newUndoBench(t, nil)
	b.write("notes.md", "v1\n", 0o644)
	out := b.run(tc("c1", "edit_file", `{"path":"notes.md","old_string":"not there","new_string":"x"}`), writeCall("c2", "new.txt", "n\n"))
	res := ofType(b.rec.events(), events.ToolResult)
	if len(res) != 2 || *res[0].OK || strings.Join(res[0].Unchanged, ",") != "notes.md" || len(res[1].Unchanged) != 0 {
		t.Fatalf("results %s; want the failed edit to say notes.md was left as it was", summary(res))
	}
	sums, err := b.a.ChangeSummaries(b.chat)
	if err != nil || len(sums) != 1 || sums[0].ID != out.RunID || strings.Join(sums[0].Paths, ",") != "new.txt" {
		t.Fatalf("change summaries %+v, %v; want the run's change of new.txt only", sums, err)
	}
}

// What a run did to each path is said by the Go side once, the same way live and reopened: the
// checkpoint names the path it is creating, each result the paths its run created, edited and
// deleted, and the chat's changes, opened again, the same.
func TestARunsChangeSaysWhichPathsItCreatedEditedAndDeleted(t *testing.T) {
	b := newUndoBench(t, nil)
	b.write("notes.md", "v1\n", 0o644)
	b.write("old.txt", "old\n", 0o644)
	b.run(writeCall("c1", "new.txt", "n\n"), writeCall("c2", "notes.md", "v2\n"), tc("c3", "delete_path", `{"path":"old.txt"}`))
	b.want("old.txt", "", 0)
	evs := b.rec.events()
	cps := ofType(evs, events.Checkpoint)
	if len(cps) != 3 || !slices.Equal(cps[0].Created, []string{"new.txt"}) || len(cps[1].Created) != 0 || len(cps[2].Created) != 0 {
		t.Errorf("checkpoints %s; want the first to say new.txt is being created", summary(cps))
	}
	res := ofType(evs, events.ToolResult)
	if len(res) != 3 || !slices.Equal(res[0].Paths, []string{"new.txt"}) || !slices.Equal(res[0].Created, []string{"new.txt"}) ||
		!slices.Equal(res[1].Paths, []string{"notes.md"}) || len(res[1].Created)+len(res[1].Deleted) != 0 ||
		!slices.Equal(res[2].Paths, []string{"old.txt"}) || !slices.Equal(res[2].Deleted, []string{"old.txt"}) || len(res[2].Created) != 0 {
		t.Errorf("results %+v; want new.txt created, notes.md edited, old.txt deleted", res)
	}
	sums, err := b.a.ChangeSummaries(b.chat)
	if err != nil || len(sums) != 1 || !slices.Equal(sums[0].Paths, []string{"new.txt", "notes.md", "old.txt"}) ||
		!slices.Equal(sums[0].Created, []string{"new.txt"}) || !slices.Equal(sums[0].Deleted, []string{"old.txt"}) {
		t.Fatalf("change summaries %+v, %v; want new.txt created, notes.md edited, old.txt deleted", sums, err)
	}
}

// Undo takes back the newest run that changed a file: a later run whose only call failed,
// changing nothing, is passed over; asked by its id, it is nothing to undo.
func TestUndoPassesOverARunThatChangedNothing(t *testing.T) {
	b := newUndoBench(t, nil)
	b.write("notes.md", "v1\n", 0o644)
	wrote := b.run(writeCall("c1", "notes.md", "v2\n"))
	failed := b.run(tc("c2", "edit_file", `{"path":"notes.md","old_string":"not there","new_string":"x"}`))
	b.wantNothingToUndo(UndoOptions{RunID: failed.RunID}, "the undo of the run that changed nothing")
	res := b.undo(UndoOptions{})
	b.want("notes.md", "v1\n", 0o644)
	if strings.Join(res.Reverts, ",") != wrote.RunID || strings.Join(res.Paths, ",") != "notes.md" {
		t.Errorf("the undo took back %v (%v), want the run that wrote notes.md", res.Reverts, res.Paths)
	}
}

func TestUndoRefusesAModeChangedSinceUnlessForced(t *testing.T) {
	b := newUndoBench(t, nil)
	b.run(writeCall("c1", "tool.sh", "echo hi\n"))
	if err := os.Chmod(filepath.Join(b.dir, "tool.sh"), 0o755); err != nil {
		t.Fatal(err)
	}
	_, err := b.a.Undo(t.Context(), b.chat, UndoOptions{})
	if !errors.Is(err, ErrConflict) || !strings.Contains(err.Error(), "permissions") {
		t.Fatalf("undo after chmod: %v, want a conflict about the permissions", err)
	}
	b.undo(UndoOptions{Force: true})
	b.want("tool.sh", "", 0)
}

func TestUndoOfUndoAndRestoreToAMessage(t *testing.T) {
	b := newUndoBench(t, nil)
	b.write("a.txt", "0\n", 0o644)
	first := b.run(writeCall("c1", "a.txt", "1\n"))
	b.run(writeCall("c2", "a.txt", "2\n"), writeCall("c3", "b.txt", "b\n"))
	b.run(writeCall("c4", "a.txt", "3\n"))

	b.undo(UndoOptions{}) // the newest run
	b.want("a.txt", "2\n", 0o644)
	b.redo() // undo of the undo
	b.want("a.txt", "3\n", 0o644)
	b.undo(UndoOptions{}) // the same run again, since the redo brought it back
	b.want("a.txt", "2\n", 0o644)

	msgs, _ := b.db.Messages(b.chat)
	var firstUser string
	for _, m := range msgs {
		if m.Role == store.RoleUser && m.RunID == first.RunID {
			firstUser = m.ID
		}
	}
	res := b.undo(UndoOptions{FromMessage: firstUser}) // restore to before the first message
	b.want("a.txt", "0\n", 0o644)
	b.want("b.txt", "", 0)
	if len(res.Reverts) != 2 {
		t.Errorf("restore reverted %v, want the two runs still standing, newest first", res.Reverts)
	}
	b.wantNothingToUndo(UndoOptions{}, "a further undo")
	b.redo()
	b.want("a.txt", "2\n", 0o644)
	b.want("b.txt", "b\n", 0o644)
}

func TestAFileOverTheCapSaysBeforeItRunsThatItCannotBeUndone(t *testing.T) {
	b := newUndoBench(t, nil)
	if _, err := b.db.UpdateSettings(func(s *store.Settings) error { s.CheckpointMaxBytes = 8; return nil }); err != nil {
		t.Fatal(err)
	}
	b.write("big.txt", "more than eight bytes\n", 0o644)
	b.run(writeCall("c1", "big.txt", "small\n"))
	evs := b.rec.events()
	cps := ofType(evs, events.Checkpoint)
	if len(cps) != 1 || len(cps[0].NotUndoable) != 1 || cps[0].NotUndoable[0] != "big.txt" {
		t.Fatalf("checkpoint events %+v, want big.txt named as not undoable", cps)
	}
	if indexOf(evs, cps[0]) > indexOf(evs, ofType(evs, events.ToolResult)[0]) {
		t.Error("the checkpoint event must come before the call's result")
	}
	_, err := b.a.Undo(t.Context(), b.chat, UndoOptions{})
	if !errors.Is(err, ErrConflict) || !strings.Contains(err.Error(), "too large") {
		t.Fatalf("undo of a file over the cap: %v, want it to say it was too large to keep", err)
	}
}

// setCap sets the checkpoint cap (checkpointMaxBytes; 0: the default).
func (b *undoBench) setCap(bytes int64) {
	b.t.Helper()
	if _, err := b.db.UpdateSettings(func(s *store.Settings) error { s.CheckpointMaxBytes = bytes; return nil }); err != nil {
		b.t.Fatal(err)
	}
}

// An undo judges each file by what its run recorded at the time: a cap lowered (or raised)
// since makes no file the run wrote "changed since", and a file really changed since is still
// refused.
func TestAnUndoJudgesAFileByWhatItsRunRecordedWhateverTheCapIsNow(t *testing.T) {
	t.Run("lowered below a file the run wrote", func(t *testing.T) {
		b := newUndoBench(t, nil)
		b.write("a.txt", "0\n", 0o644)
		b.run(writeCall("c1", "a.txt", "written whole under the default cap\n"))
		b.setCap(8)
		b.undo(UndoOptions{})
		b.want("a.txt", "0\n", 0o644)
		// what the undo replaced is kept as today's cap keeps it: over it, a redo cannot bring it back
		if _, err := b.a.Redo(t.Context(), b.chat, UndoOptions{}); !errors.Is(err, ErrConflict) || !strings.Contains(err.Error(), "too large") {
			t.Errorf("redo of a file over today's cap: %v, want it to say it was too large to keep", err)
		}
	})
	t.Run("lowered, and the file really changed since", func(t *testing.T) {
		b := newUndoBench(t, nil)
		b.write("a.txt", "0\n", 0o644)
		b.run(writeCall("c1", "a.txt", "written whole under the default cap\n"))
		b.setCap(8)
		b.write("a.txt", "WRITTEN WHOLE UNDER THE DEFAULT CAP\n", 0o644) // same size, not the same
		if _, err := b.a.Undo(t.Context(), b.chat, UndoOptions{}); !errors.Is(err, ErrConflict) || !strings.Contains(err.Error(), "changed after it was written") {
			t.Fatalf("undo of a file edited since: %v, want it refused as changed since", err)
		}
		b.want("a.txt", "WRITTEN WHOLE UNDER THE DEFAULT CAP\n", 0o644)
	})
	t.Run("raised above a file the run wrote", func(t *testing.T) {
		b := newUndoBench(t, nil)
		b.setCap(8)
		b.write("a.txt", "0\n", 0o644)
		b.run(writeCall("c1", "a.txt", "too large for the cap of then\n"))
		b.setCap(0)
		b.undo(UndoOptions{})
		b.want("a.txt", "0\n", 0o644)
	})
}

func TestThePerFileRevertPutsOnePathBackAsItWasBeforeTheChat(t *testing.T) {
	b := newUndoBench(t, nil)
	b.write("a.txt", "a0\n", 0o644)
	b.run(writeCall("c1", "a.txt", "a1\n"), writeCall("c2", "new.txt", "n\n"))
	b.run(writeCall("c3", "a.txt", "a2\n"))
	review, err := b.a.ChatChanges(t.Context(), b.chat)
	if err != nil || len(review) != 2 {
		t.Fatalf("review %+v, %v; want a.txt changed and new.txt created", review, err)
	}
	if review[0].Status != FileChanged || !strings.Contains(review[0].Diff, "-a0") || !strings.Contains(review[0].Diff, "+a2") {
		t.Errorf("a.txt in the review: %+v, want the combined diff from before the chat", review[0])
	}
	b.undo(UndoOptions{Path: "a.txt"})
	b.want("a.txt", "a0\n", 0o644)
	b.want("new.txt", "n\n", 0o644)
}

func TestAnApprovalRequestCarriesThePreviewAndNothingIsWrittenMeanwhile(t *testing.T) {
	b := newUndoBench(t, func(c *Config) { c.Approve = ApproveAsk })
	b.write("notes.md", "# Hello\n", 0o644)
	out := b.run(writeCall("c1", "notes.md", "# Hello\n\nWorld\n"))
	if out.StopReason != events.StopAwaitingApproval {
		t.Fatalf("stop %s", out.StopReason)
	}
	reqs := ofType(b.rec.events(), events.ToolApprovalRequest)
	pv, _ := reqs[0].Preview.(*tools.Preview)
	if pv == nil || pv.Path != "notes.md" || !strings.Contains(pv.Diff, "+World") || pv.Bytes != 15 {
		t.Fatalf("preview %+v, want the diff of notes.md", reqs[0].Preview)
	}
	if len(out.Awaiting) != 1 || out.Awaiting[0].Preview == nil {
		t.Error("the awaiting request should carry the preview for the terminal")
	}
	b.want("notes.md", "# Hello\n", 0o644)
	if err := b.a.Decide("c1", DecisionAllow, ""); err != nil {
		t.Fatal(err)
	}
	b.rec.waitFor(t, "the approved run finished", finished(2))
	b.want("notes.md", "# Hello\n\nWorld\n", 0o644)
	if rec, _ := b.db.ToolCall(b.chat, "c1"); rec.Preview == nil || rec.Preview.Diff != pv.Diff {
		t.Errorf("the record of the approved call lost the preview the user saw: %+v", rec.Preview)
	}
}

// A call that cannot succeed as it is says why in its approval request, before the user
// decides: an edit whose text is not in the file, a path outside the folder.
func TestAnApprovalRequestSaysWhenTheCallCannotSucceed(t *testing.T) {
	b := newUndoBench(t, func(c *Config) { c.Approve = ApproveAsk })
	b.write("notes.md", "# Hello\n", 0o644)
	b.run(tc("c1", "edit_file", `{"path":"notes.md","old_string":"not there","new_string":"x"}`), writeCall("c2", "../escape.txt", "x"))
	reqs := ofType(b.rec.events(), events.ToolApprovalRequest)
	if len(reqs) != 2 {
		t.Fatalf("approval requests %s, want two", summary(reqs))
	}
	for i, want := range []string{"was not found in", "outside"} {
		if pv, _ := reqs[i].Preview.(*tools.Preview); pv == nil || !strings.Contains(pv.Fails, want) || pv.Diff != "" {
			t.Errorf("preview of %s: %+v, want it to say the call cannot succeed (%q)", reqs[i].Name, reqs[i].Preview, want)
		}
	}
}

// An approval holds for the change the user saw: a file changed (or made) after the preview
// was shown is not written over by the approved call, which says why, so that the model can
// ask again with the change as it would be now.
func TestAnApprovedCallDoesNotWriteOverAFileChangedSinceItsPreview(t *testing.T) {
	for _, before := range []string{"# Hello\n", ""} {
		b := newUndoBench(t, func(c *Config) { c.Approve = ApproveAsk })
		if before != "" {
			b.write("notes.md", before, 0o644)
		}
		if out := b.run(writeCall("c1", "notes.md", "# Hello\n\nWorld\n")); out.StopReason != events.StopAwaitingApproval {
			t.Fatalf("stop %s", out.StopReason)
		}
		b.write("notes.md", "mine\n", 0o644) // while the user looks at the preview
		if err := b.a.Decide("c1", DecisionAllow, ""); err != nil {
			t.Fatal(err)
		}
		evs := b.rec.waitFor(t, "the approved run finished", finished(2))
		b.want("notes.md", "mine\n", 0o644)
		res := ofType(evs, events.ToolResult)
		if len(res) != 1 || *res[0].OK || !strings.Contains(res[0].Output, "notes.md changed after its change was shown for approval") {
			t.Fatalf("the result of the call approved over a changed file (before %q): %s", before, summary(res))
		}
	}
}

// A call approved after its folder was deleted cannot run: its card is closed with the
// reason, and the chat's history holds its result, instead of a card left queued.
func TestACallApprovedAfterItsFolderWentIsClosedWithTheReason(t *testing.T) {
	b := newUndoBench(t, func(c *Config) { c.Approve = ApproveAsk })
	if out := b.run(writeCall("c1", "notes.md", "hi\n")); out.StopReason != events.StopAwaitingApproval {
		t.Fatalf("stop %s", out.StopReason)
	}
	if err := os.RemoveAll(b.dir); err != nil {
		t.Fatal(err)
	}
	if err := b.a.Decide("c1", DecisionAllow, ""); err != nil {
		t.Fatal(err)
	}
	evs := b.rec.waitFor(t, "the approved run finished", finished(2))
	res := ofType(evs, events.ToolResult)
	if len(res) != 1 || *res[0].OK || !strings.Contains(res[0].Output, "does not exist") {
		t.Fatalf("the result of the call whose folder went: %s", summary(res))
	}
	if rec, err := b.db.ToolCall(b.chat, "c1"); err != nil || rec.Pending || rec.AwaitingApproval {
		t.Fatalf("the call's record %+v, %v; want it closed", rec, err)
	}
	msgs, _ := b.db.Messages(b.chat)
	if last := msgs[len(msgs)-1]; last.Role != store.RoleTool || last.ToolCallID != "c1" {
		t.Fatalf("the history ends with %+v, want the call's result", last)
	}
}

func TestAlwaysAllowInAWorkspaceRunsTheToolWithoutAsking(t *testing.T) {
	b := newUndoBench(t, nil)
	if _, err := b.db.UpdateSettings(func(s *store.Settings) error {
		s.ToolApproval = map[string]string{"write_file": ApproveAsk}
		s.AlwaysAllow = map[string][]string{b.dir: {"write_file"}}
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	b.a.cfg.Approve = ""
	if out := b.run(writeCall("c1", "x.txt", "x")); out.StopReason != events.StopCompleted {
		t.Fatalf("stop %s, want the call run without asking", out.StopReason)
	}
	b.want("x.txt", "x", 0o644)
}

func indexOf(evs []events.Event, e events.Event) int {
	for i, x := range evs {
		if x.Seq == e.Seq {
			return i
		}
	}
	return -1
}

// A chat's folder can change between its runs: each change stays in the folder its run
// wrote it in. Undo, restore, the review, its per-file revert and the folder a written file
// opens in all follow the run's folder, not the chat's folder of now.
func TestUndoPutsBackEachFileInTheFolderItsRunWroteItIn(t *testing.T) {
	b := newUndoBench(t, nil)
	first := b.dir
	b.write("a.txt", "first folder\n", 0o600)
	run1 := b.run(writeCall("c1", "a.txt", "run 1\n"))

	second := t.TempDir()
	b.dir = second
	b.write("a.txt", "second folder\n", 0o644)
	if _, err := b.db.UpdateChat(b.chat, func(c *store.Chat) { c.Workspace = second }); err != nil {
		t.Fatal(err)
	}
	b.run(writeCall("c2", "a.txt", "run 2\n"))
	if got, _ := b.a.PathFolder(b.chat, "", "a.txt"); got != second {
		t.Errorf("a.txt opens in %s, want the folder of the newest run that wrote it, %s", got, second)
	}

	review, err := b.a.ChatChanges(t.Context(), b.chat)
	if err != nil || len(review) != 2 || review[0].Workspace != first || review[1].Workspace != second {
		t.Fatalf("review %+v, %v; want a.txt of each folder, the first folder's first", review, err)
	}
	if !strings.Contains(review[0].Diff, "-first folder") || !strings.Contains(review[1].Diff, "-second folder") {
		t.Errorf("review diffs %q, %q; want each against its own folder's file", review[0].Diff, review[1].Diff)
	}

	// the first run's own Undo, after the chat moved: the first folder's file comes back, and
	// the result names that folder, which is not the chat's now
	if res := b.undo(UndoOptions{RunID: run1.RunID}); strings.Join(res.Elsewhere, ",") != first {
		t.Errorf("the undo put a.txt back in %v besides the chat's folder, want %s", res.Elsewhere, first)
	}
	b.dir = first
	b.want("a.txt", "first folder\n", 0o600)
	b.dir = second
	b.want("a.txt", "run 2\n", 0o644)

	// the review's revert of the second folder's a.txt, named by its folder
	if res := b.undo(UndoOptions{Path: "a.txt", Workspace: second}); len(res.Elsewhere) != 0 {
		t.Errorf("a revert in the chat's own folder names %v as elsewhere", res.Elsewhere)
	}
	b.want("a.txt", "second folder\n", 0o644)

	// redo of that revert, then restore to the first message: both folders put back at once
	b.redo()
	b.redo()
	b.dir = first
	b.want("a.txt", "run 1\n", 0o600)
	res := b.undo(UndoOptions{FromRun: run1.RunID})
	b.want("a.txt", "first folder\n", 0o600)
	b.dir = second
	b.want("a.txt", "second folder\n", 0o644)
	if len(res.Reverts) != 2 {
		t.Errorf("restore reverted %v, want both runs", res.Reverts)
	}
	changes, _ := b.db.Changes(b.chat)
	for _, pc := range changes[len(changes)-1].Paths {
		if pc.Workspace != first && pc.Workspace != second {
			t.Errorf("the restore's record of %s is in folder %q, want one of the run's folders", pc.Path, pc.Workspace)
		}
	}
}

// An approved deletion removes exactly what its preview listed: a file put in the folder while
// the user looked at the preview makes the call refuse, naming that file, and nothing is
// deleted (a file over the cap could not even be put back).
func TestAnApprovedDeleteRefusesAPathAddedSinceItsPreview(t *testing.T) {
	b := newUndoBench(t, func(c *Config) { c.Approve = ApproveAsk })
	b.write("build/out.txt", "built\n", 0o644)
	if out := b.run(tc("c1", "delete_path", `{"path":"build","recursive":true}`)); out.StopReason != events.StopAwaitingApproval {
		t.Fatalf("stop %s", out.StopReason)
	}
	b.write("build/big.bin", strings.Repeat("x", 1<<20), 0o644) // while the user looks at the preview
	if err := b.a.Decide("c1", DecisionAllow, ""); err != nil {
		t.Fatal(err)
	}
	evs := b.rec.waitFor(t, "the approved run finished", finished(2))
	b.want("build/out.txt", "built\n", 0o644)
	b.want("build/big.bin", strings.Repeat("x", 1<<20), 0o644)
	res := ofType(evs, events.ToolResult)
	if len(res) != 1 || *res[0].OK || !strings.Contains(res[0].Output, `"build/big.bin" is new`) {
		t.Fatalf("the result of the delete approved over an added file: %s", summary(res))
	}
}

// Every name a file system allows is deleted, checkpointed and put back byte for byte: an
// escape character, a newline, bytes that are not UTF-8 (beside a file really named with the
// replacement character they would read as), in a folder and as the folder's own name.
func TestUndoPutsBackADeletedFolderWhateverItsNames(t *testing.T) {
	b := newUndoBench(t, nil)
	files := map[string]string{
		"lib/plain.txt":           "plain\n",
		"lib/esc\x1b[31mred.txt":  "escape\n",
		"lib/new\nline.txt":       "newline\n",
		"lib/caf\xe9.txt":         "latin-1\n",
		"lib/caf\uFFFD.txt":       "replacement character\n",
		"lib/d\xff\x1b/inner.txt": "inner\n",
		"lib/d\xff\x1b/tab\there": "tab\n",
	}
	for p, content := range files {
		b.write(p, content, 0o640)
	}
	if err := os.Symlink("caf\xe9.txt", filepath.Join(b.dir, "lib", "link\xfe")); err != nil {
		t.Fatal(err)
	}
	b.run(tc("c1", "delete_path", `{"path":"lib","recursive":true}`))
	b.want("lib", "", 0)

	for range 2 { // and again after a redo: the undo's own record keeps the names too
		b.undo(UndoOptions{})
		for p, content := range files {
			b.want(p, content, 0o640)
		}
		if target, err := os.Readlink(filepath.Join(b.dir, "lib", "link\xfe")); err != nil || target != "caf\xe9.txt" {
			t.Errorf("link %q, %v; want it back under its own name, pointing at caf\\xe9.txt", target, err)
		}
		entries, _ := os.ReadDir(filepath.Join(b.dir, "lib"))
		if len(entries) != 7 {
			t.Errorf("lib holds %d entries after the undo, want the 7 it held", len(entries))
		}
		b.redo()
		b.want("lib", "", 0)
	}
}

// An undo whose write fails part way puts back what it wrote before it and is not recorded:
// the files are as they were, plain undo still knows what to undo (and says why it cannot),
// and once the obstacle is gone it undoes, and redo takes that back.
func TestAnUndoThatFailsPartWayChangesNothingAndIsNotRecorded(t *testing.T) {
	b := newUndoBench(t, nil)
	b.write("z.txt", "z1\n", 0o644)
	b.write("sub/a.txt", "a1\n", 0o644)
	b.run(writeCall("c1", "z.txt", "z2\n"), writeCall("c2", "sub/a.txt", "a2\n"))
	// the user turns the folder into a file: z.txt can be put back, sub/a.txt cannot
	if err := os.RemoveAll(filepath.Join(b.dir, "sub")); err != nil {
		t.Fatal(err)
	}
	b.write("sub", "a file now\n", 0o644)

	_, err := b.a.Undo(t.Context(), b.chat, UndoOptions{Force: true})
	if !errors.Is(err, ErrNothingReverted) {
		t.Fatalf("a forced undo through a file: %v, want it to say nothing was changed", err)
	}
	b.want("z.txt", "z2\n", 0o644) // put back as it was before the undo
	b.want("sub", "a file now\n", 0o644)
	if _, err := b.a.Undo(t.Context(), b.chat, UndoOptions{}); !errors.Is(err, ErrConflict) {
		t.Fatalf("plain undo after the failed one: %v, want the conflict it still has (not nothing to undo)", err)
	}
	if _, err := b.a.Redo(t.Context(), b.chat, UndoOptions{}); !errors.Is(err, ErrNothingToRedo) {
		t.Fatalf("redo after the failed undo: %v, want nothing to redo", err)
	}

	if err := os.Remove(filepath.Join(b.dir, "sub")); err != nil {
		t.Fatal(err)
	}
	if err := os.Mkdir(filepath.Join(b.dir, "sub"), 0o755); err != nil {
		t.Fatal(err)
	}
	b.undo(UndoOptions{Force: true})
	b.want("z.txt", "z1\n", 0o644)
	b.want("sub/a.txt", "a1\n", 0o644)
	b.redo() // back to what the undo found: sub/a.txt was not there
	b.want("z.txt", "z2\n", 0o644)
	b.want("sub/a.txt", "", 0)
	noLeftovers(t, b.dir)
}

// noLeftovers fails the test when a temporary file of a write is left under dir.
func noLeftovers(t testing.TB, dir string) {
	t.Helper()
	filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err == nil && strings.Contains(d.Name(), ".tmp-") {
			t.Errorf("a temporary file is left: %s", p)
		}
		return nil
	})
}

// commitFails is the store of an app that dies just before an undo is recorded done: the
// files are written, the journal stays.
type commitFails struct{ *store.DB }

func (commitFails) CommitRevert(store.RevertJournal) error { return errors.New("the disk is full") }

// An undo the app died in before recording it is finished when the app starts again: it is
// recorded done (redo takes it back), and the temporary files its writes left are removed.
func TestAnUndoTheAppDiedInIsFinishedWhenTheAppStarts(t *testing.T) {
	b := newUndoBench(t, func(c *Config) { c.Store = commitFails{c.Store.(*store.DB)} })
	b.write("a.txt", "v1\n", 0o644)
	b.run(writeCall("c1", "a.txt", "v2\n"))
	if _, err := b.a.Undo(t.Context(), b.chat, UndoOptions{}); err == nil {
		t.Fatal("an undo that could not be recorded said it was done")
	}
	b.want("a.txt", "v1\n", 0o644)
	b.write(".a.txt.tmp-0123456789ab", "half a write", 0o644) // what a write killed before its rename leaves

	rec := newRecorder()
	again := b.startAgain(rec)
	if js, err := b.db.Reverts(""); err != nil || len(js) != 0 {
		t.Fatalf("%d undos still under way after the start (%v)", len(js), err)
	}
	if undos := ofType(rec.events(), events.Undo); len(undos) != 1 {
		t.Errorf("the window was told of %d undos, want the one finished", len(undos))
	}
	b.want("a.txt", "v1\n", 0o644)
	noLeftovers(t, b.dir)
	if _, err := again.Redo(t.Context(), b.chat, UndoOptions{}); err != nil {
		t.Fatalf("redo of the finished undo: %v", err)
	}
	b.want("a.txt", "v2\n", 0o644)
}

// An undo that goes past a file too large to keep (keeping or forced) says that file is gone:
// the rest of the folder comes back, and the result names the file with a sentence.
func TestAnUndoKeepingSaysWhichFileTooLargeToKeepIsGone(t *testing.T) {
	b := newUndoBench(t, nil)
	b.setCap(64)
	b.write("build/out.txt", "built\n", 0o644)
	b.write("build/big.bin", strings.Repeat("x", 200), 0o644)
	b.run(tc("c1", "delete_path", `{"path":"build","recursive":true}`))
	b.want("build", "", 0)

	if _, err := b.a.Undo(t.Context(), b.chat, UndoOptions{}); !errors.Is(err, ErrConflict) || !strings.Contains(err.Error(), "build/big.bin was too large") {
		t.Fatalf("a plain undo past a file too large to keep: %v, want a refusal naming it", err)
	}
	res := b.undo(UndoOptions{Keep: true})
	b.want("build/out.txt", "built\n", 0o644)
	b.want("build/big.bin", "", 0)
	if len(res.NotPutBack) != 1 || res.NotPutBack[0].Path != "build/big.bin" || !res.NotPutBack[0].Gone ||
		!strings.Contains(res.NotPutBack[0].Sentence, "build/big.bin is gone: it was too large (200 bytes)") {
		t.Fatalf("the undo's result says of the file too large to keep: %+v", res.NotPutBack)
	}
	if len(res.Kept) != 0 {
		t.Errorf("kept %v: there was no version of the user's to keep", res.Kept)
	}
}

// Keeping the user's version keeps a symbolic link put where a file was, as a link beside
// the restored file (NAME.mine), rather than replacing it silently; redo brings it back.
func TestKeepMineKeepsASymbolicLinkTheUserPutThere(t *testing.T) {
	b := newUndoBench(t, nil)
	b.write("notes.md", "v1\n", 0o644)
	b.write("other.md", "other\n", 0o644)
	b.run(writeCall("c1", "notes.md", "v2\n"))
	if err := os.Remove(filepath.Join(b.dir, "notes.md")); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink("other.md", filepath.Join(b.dir, "notes.md")); err != nil {
		t.Fatal(err)
	}

	res := b.undo(UndoOptions{Keep: true})
	b.want("notes.md", "v1\n", 0o644)
	if target, err := os.Readlink(filepath.Join(b.dir, "notes.md.mine")); err != nil || target != "other.md" {
		t.Fatalf("notes.md.mine: %q, %v; want the user's link kept, pointing at other.md", target, err)
	}
	if len(res.Kept) != 1 || res.Kept[0] != "notes.md.mine" {
		t.Errorf("kept %v, want notes.md.mine", res.Kept)
	}
	b.redo()
	if target, err := os.Readlink(filepath.Join(b.dir, "notes.md")); err != nil || target != "other.md" {
		t.Errorf("after the redo notes.md is %q, %v; want the user's link back", target, err)
	}
	b.want("notes.md.mine", "", 0)
}

// An undo the app died in whose folder is gone since is dropped, not retried forever: the
// chat's next undo goes on.
func TestAnUndoTheAppDiedInIsDroppedWhenItsFolderIsGone(t *testing.T) {
	b := newUndoBench(t, func(c *Config) { c.Store = commitFails{c.Store.(*store.DB)} })
	b.write("a.txt", "v1\n", 0o644)
	b.run(writeCall("c1", "a.txt", "v2\n"))
	if _, err := b.a.Undo(t.Context(), b.chat, UndoOptions{}); err == nil {
		t.Fatal("an undo that could not be recorded said it was done")
	}
	if err := os.RemoveAll(b.dir); err != nil {
		t.Fatal(err)
	}
	b.startAgain(newRecorder())
	if js, err := b.db.Reverts(""); err != nil || len(js) != 0 {
		t.Fatalf("%d undos still under way (%v), want the one of the folder gone dropped", len(js), err)
	}
}

// A delete removes only what its checkpoint recorded: a file another program puts in the
// folder after the checkpoint was taken, as the call's card turns running, is never deleted
// unrecorded (it could not be put back); the call refuses naming it, and nothing is deleted.
func TestADeleteNeverRemovesAPathAddedAfterItsCheckpoint(t *testing.T) {
	for _, approve := range []string{ApproveAuto, ApproveAsk} {
		t.Run(approve, func(t *testing.T) {
			b := newUndoBench(t, func(c *Config) { c.Approve = approve })
			b.write("build/out.txt", "built\n", 0o644)
			b.rec.mu.Lock()
			b.rec.react = func(e events.Event) {
				if e.Type == events.ToolCall && e.State == events.ToolStateRunning && e.ToolCallID == "c1" {
					b.write("build/late.bin", "made while the delete started\n", 0o644)
				}
			}
			b.rec.mu.Unlock()
			out := b.run(tc("c1", "delete_path", `{"path":"build","recursive":true}`))
			if approve == ApproveAsk {
				if out.StopReason != events.StopAwaitingApproval {
					t.Fatalf("stop %s", out.StopReason)
				}
				if err := b.a.Decide("c1", DecisionAllow, ""); err != nil {
					t.Fatal(err)
				}
				b.rec.waitFor(t, "the approved run finished", finished(2))
			}
			b.want("build/late.bin", "made while the delete started\n", 0o644)
			b.want("build/out.txt", "built\n", 0o644)
			res := ofType(b.rec.events(), events.ToolResult)
			if len(res) != 1 || *res[0].OK || !strings.Contains(res[0].Output, "build/late.bin") {
				t.Fatalf("the delete's result: %s", summary(res))
			}
		})
	}
}

// commitFailsOnce is the store of an app that died once just before an undo was recorded
// done (the files written, the journal left), then started again.
type commitFailsOnce struct {
	*store.DB
	failed *sync.Once
}

func (s commitFailsOnce) CommitRevert(j store.RevertJournal) error {
	var err error
	s.failed.Do(func() { err = errors.New("the disk is full") })
	if err != nil {
		return err
	}
	return s.DB.CommitRevert(j)
}

// A run in a chat whose undo the app died in (`prototyper undo` killed, then `prototyper run
// --chat`) settles that undo before it changes a file: otherwise the undo, neither done nor
// undone, is dropped at the next undo and the run's own undo leaves the chat stuck ("changed
// by you").
func TestARunSettlesAnUndoTheAppDiedInBeforeItWrites(t *testing.T) {
	b := newUndoBench(t, func(c *Config) { c.Store = commitFailsOnce{c.Store.(*store.DB), &sync.Once{}} })
	b.write("a.txt", "v1\n", 0o644)
	b.run(writeCall("c1", "a.txt", "v2\n"))
	if _, err := b.a.Undo(t.Context(), b.chat, UndoOptions{}); err == nil {
		t.Fatal("an undo that could not be recorded said it was done")
	}
	b.want("a.txt", "v1\n", 0o644)
	b.run(writeCall("c2", "a.txt", "v3\n"))
	if js, err := b.db.Reverts(b.chat); err != nil || len(js) != 0 {
		t.Fatalf("%d undos still under way after a run of the chat (%v)", len(js), err)
	}
	b.want("a.txt", "v3\n", 0o644)
	b.undo(UndoOptions{})
	b.want("a.txt", "v1\n", 0o644)
	b.redo()
	b.want("a.txt", "v3\n", 0o644)
}

// Revert all (the review's) puts every file of the chat back as it was before the chat, a
// file reverted alone before it included, with the refusal and Keep mine of any undo, and
// marks every run that stood taken back; a redo brings them all back.
func TestRevertAllPutsEveryFileBackAsItWasBeforeTheChat(t *testing.T) {
	b := newUndoBench(t, nil)
	b.write("a.txt", "a0\n", 0o644)
	b.write("c.txt", "c0\n", 0o644)
	b.run(writeCall("c1", "a.txt", "a1\n"), writeCall("c2", "new.txt", "n\n"))
	b.run(writeCall("c3", "a.txt", "a2\n"), writeCall("c4", "c.txt", "c1\n"))
	b.undo(UndoOptions{Path: "c.txt"}) // reverted alone first
	b.want("c.txt", "c0\n", 0o644)
	b.write("new.txt", "mine\n", 0o644) // the user edits one after the runs

	_, err := b.a.Undo(t.Context(), b.chat, UndoOptions{All: true})
	var ce *ConflictError
	if !errors.As(err, &ce) || len(ce.Conflicts) != 1 || ce.Conflicts[0].Path != "new.txt" {
		t.Fatalf("revert all over a file edited since: %v, want a conflict naming new.txt only", err)
	}
	b.want("a.txt", "a2\n", 0o644) // nothing changed

	res := b.undo(UndoOptions{All: true, Keep: true})
	b.want("a.txt", "a0\n", 0o644)
	b.want("c.txt", "c0\n", 0o644)
	b.want("new.txt", "", 0)
	b.want("new.txt.mine", "mine\n", 0o644)
	if len(res.Reverts) != 2 {
		t.Errorf("revert all took back %v, want the two runs", res.Reverts)
	}
	b.wantNothingToUndo(UndoOptions{}, "an undo after revert all")
	b.redo()
	b.want("a.txt", "a2\n", 0o644)
	b.want("new.txt", "mine\n", 0o644)
	b.want("c.txt", "c0\n", 0o644)
}
