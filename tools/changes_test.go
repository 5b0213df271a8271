package tools

import (
	"encoding/json"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"prototyper/sandbox"
)

func (tw *testWorkspace) call(t testing.TB, tool string, args map[string]any) Call {
	t.Helper()
	raw, _ := json.Marshal(args)
	a, err := tw.reg.Validate(tool, raw)
	if err != nil {
		t.Fatal(err)
	}
	return Call{ID: "t", Name: tool, Args: a}
}

func TestThePreviewOfAWriteIsTheDiffTheWriteThenReports(t *testing.T) {
	for _, tc := range []struct {
		name, tool string
		args       map[string]any
	}{
		{"overwrite", "write_file", map[string]any{"path": "notes.md", "content": "# Hello\n\nWorld\n"}},
		{"create in new folders", "write_file", map[string]any{"path": "a/b/new.txt", "content": "new\n"}},
		{"edit", "edit_file", map[string]any{"path": "notes.md", "old_string": "Hello", "new_string": "Goodbye"}},
		{"the same content", "write_file", map[string]any{"path": "notes.md", "content": "# Hello\n"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			tw := newTestWorkspace(t)
			os.WriteFile(filepath.Join(tw.ws, "notes.md"), []byte("# Hello\n"), 0o644)
			call := tw.call(t, tc.tool, tc.args)
			pv, err := tw.reg.Preview(t.Context(), call)
			if err != nil {
				t.Fatal(err)
			}
			if _, err := os.Stat(filepath.Join(tw.ws, "a")); err == nil {
				t.Fatal("the preview made a folder")
			}
			if got, _ := os.ReadFile(filepath.Join(tw.ws, "notes.md")); string(got) != "# Hello\n" {
				t.Fatalf("the preview wrote %q", got)
			}
			res := tw.run(t, tc.tool, tc.args)
			if res.IsError || pv.Diff != res.Details.Diff || pv.Bytes != res.Details.Bytes || pv.Created != res.Details.Created || pv.Unchanged == res.Details.Changed {
				t.Fatalf("preview %+v, but the call did %+v", pv, res.Details)
			}
		})
	}
}

func TestTouchesNamesTheFoldersAWriteMakesAndEverythingADeleteRemoves(t *testing.T) {
	tw := newTestWorkspace(t)
	os.MkdirAll(filepath.Join(tw.ws, "lib", "deep"), 0o755)
	os.WriteFile(filepath.Join(tw.ws, "lib", "deep", "x.txt"), []byte("x"), 0o644)
	paths, ok, err := tw.reg.Touches(t.Context(), tw.call(t, "write_file", map[string]any{"path": "src/app/main.go", "content": ""}))
	if !ok || err != nil || !slices.Equal(paths, []string{"src", "src/app", "src/app/main.go"}) {
		t.Errorf("write touches %v (%v, %v)", paths, ok, err)
	}
	paths, _, err = tw.reg.Touches(t.Context(), tw.call(t, "delete_path", map[string]any{"path": "lib", "recursive": true}))
	if err != nil || !slices.Equal(paths, []string{"lib", "lib/deep", "lib/deep/x.txt"}) {
		t.Errorf("delete touches %v (%v)", paths, err)
	}
	if _, _, err = tw.reg.Touches(t.Context(), tw.call(t, "delete_path", map[string]any{"path": "lib"})); !errors.Is(err, ErrNotEmpty) {
		t.Errorf("a delete of a full folder without recursive: %v, want the error the call fails with", err)
	}
	if _, ok, _ := tw.reg.Touches(t.Context(), tw.call(t, "read_file", map[string]any{"path": "lib/deep/x.txt"})); ok {
		t.Error("read_file changes nothing and should say so")
	}
	pv, err := tw.reg.Preview(t.Context(), tw.call(t, "delete_path", map[string]any{"path": "lib", "recursive": true}))
	if err != nil || len(pv.Removes) != 3 || pv.Bytes != 1 {
		t.Errorf("delete preview %+v (%v), want the three paths and one byte", pv, err)
	}
}

func TestADeleteOfAFolderHoldingGitIsRefusedBeforeAnythingIsRemoved(t *testing.T) {
	tw := newTestWorkspace(t)
	os.MkdirAll(filepath.Join(tw.ws, "proj", ".git"), 0o755)
	os.WriteFile(filepath.Join(tw.ws, "proj", "a.txt"), []byte("a"), 0o644)
	_, err := tw.exec(t, t.Context(), "delete_path", map[string]any{"path": "proj", "recursive": true}, nil)
	if !errors.Is(err, ErrProtectedPath) {
		t.Fatalf("delete of a folder holding .git: %v", err)
	}
	if _, err := os.Stat(filepath.Join(tw.ws, "proj", "a.txt")); err != nil {
		t.Fatal("a file was removed before the refusal")
	}
}

func TestRestoreRefusesAFolderHoldingSomethingItDidNotMake(t *testing.T) {
	tw := newTestWorkspace(t)
	os.MkdirAll(filepath.Join(tw.ws, "made"), 0o755)
	os.WriteFile(filepath.Join(tw.ws, "made", "users.txt"), []byte("u"), 0o644)
	err := tw.w.Restore(t.Context(), []PathState{{Path: "made", Kind: KindAbsent}})
	if !errors.Is(err, ErrNotEmpty) || !strings.Contains(err.Error(), "users.txt") {
		t.Fatalf("restore: %v", err)
	}
	if err := tw.w.Restore(t.Context(), []PathState{{Path: ".git/config", Kind: KindAbsent}}); !errors.Is(err, ErrProtectedPath) {
		t.Fatalf("restore into .git: %v", err)
	}
}

// A process killed while it wrote a file leaves the write's temporary file beside it. Undoing
// the run that made the folder takes that leftover with the folder; a file of the user's, or
// a look-alike of a file the undo does not name, still stops it.
func TestRestoreTakesTheLeftoverOfAnInterruptedWriteWithTheFolder(t *testing.T) {
	tw := newTestWorkspace(t)
	made := filepath.Join(tw.ws, "made")
	os.MkdirAll(made, 0o755)
	os.WriteFile(filepath.Join(made, "n.txt"), []byte("n"), 0o644)
	leftover := sandbox.TempName("n.txt")
	os.WriteFile(filepath.Join(made, leftover), []byte("half"), 0o600)
	os.WriteFile(filepath.Join(made, sandbox.TempName("other.txt")), []byte("?"), 0o600)
	undo := []PathState{{Path: "made", Kind: KindAbsent}, {Path: "made/n.txt", Kind: KindAbsent}}
	if err := tw.w.Restore(t.Context(), undo); !errors.Is(err, ErrNotEmpty) || !strings.Contains(err.Error(), "other.txt") {
		t.Fatalf("restore with the leftover of a file it does not name: %v", err)
	}
	entries, _ := os.ReadDir(made)
	for _, e := range entries {
		if strings.Contains(e.Name(), "other.txt") {
			os.Remove(filepath.Join(made, e.Name()))
		}
	}
	if err := tw.w.Restore(t.Context(), undo); err != nil {
		t.Fatalf("restore: %v", err)
	}
	if _, err := os.Stat(made); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("the folder the run made is still there (%v)", err)
	}
}

// A state's path and link target are recorded exactly, whatever their bytes, and a record
// made before names were kept exactly still reads.
func TestAStateRecordsANameThatIsNotUTF8Exactly(t *testing.T) {
	for _, s := range []PathState{
		{Path: "caf\xe9.txt", Kind: KindFile, Hash: "h", Size: 3},
		{Path: "caf\uFFFD.txt", Kind: KindFile, Hash: "h", Size: 3},
		{Path: "esc\x1b\nname", Kind: KindSymlink, Target: "t\xff\xfe"},
	} {
		b, err := json.Marshal(s)
		if err != nil {
			t.Fatal(err)
		}
		var got PathState
		if err := json.Unmarshal(b, &got); err != nil || got.Path != s.Path || got.Target != s.Target {
			t.Errorf("%q (%s) read back as %q → %q, %v", s.Path, b, got.Path, got.Target, err)
		}
	}
	var old PathState
	if err := json.Unmarshal([]byte(`{"path":"a/b.txt","kind":"file","size":2,"hash":"h"}`), &old); err != nil ||
		!old.Same(PathState{Path: "a/b.txt", Kind: KindFile, Size: 2, Hash: "h"}) || old.Path != "a/b.txt" {
		t.Errorf("an older record read as %+v, %v", old, err)
	}
}
