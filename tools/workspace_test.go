package tools

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestWriteFileCreatesParentsAndReportsADiff(t *testing.T) {
	tw := newTestWorkspace(t)
	res := tw.run(t, "write_file", map[string]any{"path": "src/app/main.go", "content": "package main\n"})
	if res.IsError {
		t.Fatal(res.Content)
	}
	if got := tw.read(t, "src/app/main.go"); got != "package main\n" {
		t.Fatalf("content %q", got)
	}
	d := res.Details
	if d == nil || d.Path != "src/app/main.go" || !d.Created || !d.Changed || d.Bytes != 13 {
		t.Fatalf("details %+v", d)
	}
	if want := "--- /dev/null\n+++ b/src/app/main.go\n@@ -0,0 +1 @@\n+package main\n"; d.Diff != want {
		t.Fatalf("diff\n%s\nwant\n%s", d.Diff, want)
	}
	if !strings.Contains(res.Content, "Created src/app/main.go") {
		t.Fatalf("content %q", res.Content)
	}
}

func TestWriteFileReplacesAndKeepsTheFileMode(t *testing.T) {
	tw := newTestWorkspace(t)
	tw.write(t, "run.sh", "echo one\n")
	os.Chmod(filepath.Join(tw.ws, "run.sh"), 0o750)
	res := tw.run(t, "write_file", map[string]any{"path": "run.sh", "content": "echo two\n"})
	if res.IsError || res.Details.Created || !res.Details.Changed {
		t.Fatalf("%+v %+v", res, res.Details)
	}
	if !strings.Contains(res.Details.Diff, "-echo one\n+echo two\n") {
		t.Fatalf("diff %q", res.Details.Diff)
	}
	fi, _ := os.Stat(filepath.Join(tw.ws, "run.sh"))
	if fi.Mode().Perm() != 0o750 {
		t.Fatalf("mode %v, want 0750 kept", fi.Mode().Perm())
	}
	res = tw.run(t, "write_file", map[string]any{"path": "run.sh", "content": "echo two\n"})
	if res.Details.Changed || res.Details.Diff != "" {
		t.Fatalf("rewriting the same content is not a change: %+v", res.Details)
	}
}

func TestEditFileReplacesExactlyTheExpectedOccurrences(t *testing.T) {
	cases := []struct {
		name     string
		args     map[string]any
		want     string // file content after
		wantErr  error
		mentions string
	}{
		{"unique match", map[string]any{"old_string": "b := 2", "new_string": "b := 3"}, "a := 1\nb := 3\nc := 1\n", nil, "replaced 1 occurrence"},
		{"no match", map[string]any{"old_string": "d := 4", "new_string": "x"}, "", ErrNoMatch, "read the file again"},
		{"ambiguous match", map[string]any{"old_string": ":= 1", "new_string": ":= 9"}, "", ErrMatchCount, "occurs 2 times"},
		{"all expected occurrences", map[string]any{"old_string": ":= 1", "new_string": ":= 9", "expected_replacements": 2}, "a := 9\nb := 2\nc := 9\n", nil, "replaced 2 occurrences"},
		{"wrong expected count", map[string]any{"old_string": ":= 1", "new_string": ":= 9", "expected_replacements": 3}, "", ErrMatchCount, "not the 3 given"},
		{"no change", map[string]any{"old_string": "a", "new_string": "a"}, "", ErrNoMatch, "the same"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			tw := newTestWorkspace(t)
			const orig = "a := 1\nb := 2\nc := 1\n"
			tw.write(t, "x.go", orig)
			c.args["path"] = "x.go"
			res, err := tw.exec(t, t.Context(), "edit_file", c.args, nil)
			if c.wantErr != nil {
				if !errors.Is(err, c.wantErr) || !strings.Contains(err.Error(), c.mentions) {
					t.Fatalf("got %v, want %v mentioning %q", err, c.wantErr, c.mentions)
				}
				if tw.read(t, "x.go") != orig {
					t.Fatal("a refused edit must leave the file unchanged")
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if got := tw.read(t, "x.go"); got != c.want || !strings.Contains(res.Content, c.mentions) {
				t.Fatalf("content %q, result %q", got, res.Content)
			}
			if res.Details.Diff == "" || !res.Details.Changed {
				t.Fatalf("details %+v", res.Details)
			}
		})
	}
}

func TestEditFileOfAMissingFileSaysToCreateIt(t *testing.T) {
	tw := newTestWorkspace(t)
	_, err := tw.exec(t, t.Context(), "edit_file", map[string]any{"path": "nope.txt", "old_string": "a", "new_string": "b"}, nil)
	if !errors.Is(err, ErrNotFound) || !strings.Contains(err.Error(), "write_file") {
		t.Fatalf("got %v", err)
	}
	if _, err := os.Stat(filepath.Join(tw.ws, "nope.txt")); !os.IsNotExist(err) {
		t.Fatal("edit_file must not create files")
	}
}

func TestReadFileReturnsTextWithinItsCaps(t *testing.T) {
	tw := newTestWorkspaceWith(t, WorkspaceOptions{MaxReadBytes: 64})
	tw.write(t, "small.txt", "one\ntwo\nthree\n")
	var big strings.Builder
	for i := range 100 {
		big.WriteString(strings.Repeat("x", 9) + string(rune('a'+i%26)) + "\n")
	}
	tw.write(t, "big.txt", big.String())
	tw.write(t, "img.png", "\x89PNG\r\n\x1a\n\x00\x00")
	tw.write(t, "dir/f", "")
	cases := []struct {
		name     string
		args     map[string]any
		want     string
		wantErr  error
		mentions string
	}{
		{"whole small file", map[string]any{"path": "small.txt"}, "one\ntwo\nthree\n", nil, ""},
		{"line range", map[string]any{"path": "small.txt", "offset": 2, "limit": 1}, "two\n[lines 2-2 of \"small.txt\" shown; 14 bytes in all; call read_file with offset 3 to read on]", nil, ""},
		{"from a line to the end", map[string]any{"path": "small.txt", "offset": 2}, "two\nthree\n[lines 2-3 of 3]", nil, ""},
		{"offset past the end", map[string]any{"path": "small.txt", "offset": 9}, "", ErrNotFound, "has 3 lines"},
		{"size cap", map[string]any{"path": "big.txt"}, "xxxxxxxxxa\nxxxxxxxxxb\nxxxxxxxxxc\nxxxxxxxxxd\nxxxxxxxxxe\n[lines 1-5 of \"big.txt\" shown; 1100 bytes in all; call read_file with offset 6 to read on]", nil, ""},
		{"binary file", map[string]any{"path": "img.png"}, "", ErrBinaryFile, "binary file"},
		{"folder", map[string]any{"path": "dir"}, "", ErrWrongKind, "is a folder"},
		{"missing file", map[string]any{"path": "nope.txt"}, "", ErrNotFound, "use list_dir"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			res, err := tw.exec(t, t.Context(), "read_file", c.args, nil)
			if c.wantErr != nil {
				if !errors.Is(err, c.wantErr) || !strings.Contains(err.Error(), c.mentions) {
					t.Fatalf("got %v, want %v mentioning %q", err, c.wantErr, c.mentions)
				}
				return
			}
			if err != nil || res.Content != c.want {
				t.Fatalf("got %q, %v\nwant %q", res.Content, err, c.want)
			}
		})
	}
}

func TestListDirSkipsGitAndNodeModulesUnlessAsked(t *testing.T) {
	tw := newTestWorkspace(t)
	tw.writeSkipped(t)
	tw.write(t, "src/a/b/c.go", "package c\n")
	tw.write(t, "README.md", "hi")
	os.Symlink("README.md", filepath.Join(tw.ws, "readme"))

	res := tw.run(t, "list_dir", map[string]any{})
	want := ".git/ (skipped)\nREADME.md (2 B)\nnode_modules/ (skipped)\nreadme -> README.md\nsrc/"
	if res.Content != want {
		t.Fatalf("got\n%s\nwant\n%s", res.Content, want)
	}
	res = tw.run(t, "list_dir", map[string]any{"path": "src", "recursive": true, "depth": 2})
	if res.Content != "a/\na/b/" {
		t.Fatalf("depth 2 under src: %q", res.Content)
	}
	res = tw.run(t, "list_dir", map[string]any{"recursive": true, "include_skipped": true})
	if !strings.Contains(res.Content, ".git/x/index.js (8 B)") || !strings.Contains(res.Content, "node_modules/x/index.js") {
		t.Fatalf("include_skipped: %s", res.Content)
	}
}

func TestListDirStopsAtTheEntryCap(t *testing.T) {
	tw := newTestWorkspaceWith(t, WorkspaceOptions{MaxListEntries: 3})
	for _, n := range []string{"a", "b", "c", "d", "e"} {
		tw.write(t, n, "")
	}
	res := tw.run(t, "list_dir", map[string]any{"path": "."})
	if !strings.HasPrefix(res.Content, "a (0 B)\nb (0 B)\nc (0 B)\n[stopped after 3 entries") {
		t.Fatalf("got %q", res.Content)
	}
}

func TestMakeDirAndDeletePath(t *testing.T) {
	tw := newTestWorkspace(t)
	if res := tw.run(t, "make_dir", map[string]any{"path": "a/b"}); res.IsError || !res.Details.Created {
		t.Fatalf("%+v", res)
	}
	if res := tw.run(t, "make_dir", map[string]any{"path": "a/b"}); res.IsError || res.Details.Created {
		t.Fatalf("an existing folder is fine and not created: %+v", res)
	}
	tw.write(t, "a/b/f.txt", "bye\n")
	if _, err := tw.exec(t, t.Context(), "delete_path", map[string]any{"path": "a/b"}, nil); !errors.Is(err, ErrNotEmpty) {
		t.Fatalf("got %v, want ErrNotEmpty", err)
	}
	res := tw.run(t, "delete_path", map[string]any{"path": "a/b/f.txt"})
	if res.IsError || res.Details.Diff != "--- a/a/b/f.txt\n+++ /dev/null\n@@ -1 +0,0 @@\n-bye\n" {
		t.Fatalf("%+v %+v", res, res.Details)
	}
	if res := tw.run(t, "delete_path", map[string]any{"path": "a/b"}); res.IsError {
		t.Fatal(res.Content)
	}
	if _, err := os.Stat(filepath.Join(tw.ws, "a/b")); !os.IsNotExist(err) {
		t.Fatal("a/b still exists")
	}
	if _, err := tw.exec(t, t.Context(), "delete_path", map[string]any{"path": "."}, nil); !errors.Is(err, ErrInvalidPath) {
		t.Fatalf("deleting the workspace itself: got %v", err)
	}
	if def, _ := tw.reg.Definition("delete_path"); def.DefaultApproval != ApprovalAsk {
		t.Fatalf("delete_path approval %q, want ask", def.DefaultApproval)
	}
}

func TestDeletingASymlinkLeavesItsTargetAlone(t *testing.T) {
	tw := newTestWorkspace(t)
	before := snapshot(t, tw.secret)
	os.Symlink(tw.secret, filepath.Join(tw.ws, "link"))
	if res := tw.run(t, "delete_path", map[string]any{"path": "link"}); res.IsError || !strings.Contains(res.Content, "symbolic link") {
		t.Fatalf("%+v", res)
	}
	before.check(t)
}

func TestSearchFilesFindsLinesAndSkipsWhatItShould(t *testing.T) {
	tw := newTestWorkspace(t)
	tw.write(t, "a.go", "package a\nfunc Handler() {}\n")
	tw.write(t, "b/c.txt", "nothing\nHANDLER here\n")
	tw.writeSkipped(t)
	tw.write(t, "bin.dat", "Handler\x00\x01")
	os.Symlink(tw.out, filepath.Join(tw.ws, "out"))
	os.WriteFile(filepath.Join(tw.out, "o.txt"), []byte("Handler\n"), 0o644)

	res := tw.run(t, "search_files", map[string]any{"pattern": "handler", "ignore_case": true})
	want := "a.go:2: func Handler() {}\nb/c.txt:2: HANDLER here\n[skipped 1 binary and 0 large files]"
	if res.IsError || res.Content != want {
		t.Fatalf("got\n%s\nwant\n%s", res.Content, want)
	}
	res = tw.run(t, "search_files", map[string]any{"pattern": "Handler", "glob": "*.txt"})
	if !strings.HasPrefix(res.Content, "No matches") {
		t.Fatalf("glob: %q", res.Content)
	}
	res = tw.run(t, "search_files", map[string]any{"pattern": "func (", "path": "."})
	if !res.IsError || !strings.Contains(res.Content, "not a valid regular expression") {
		t.Fatalf("bad pattern: %+v", res)
	}
	res = tw.run(t, "search_files", map[string]any{"pattern": "e", "max_results": 1})
	if !strings.Contains(res.Content, "[stopped after 1 matches") {
		t.Fatalf("cap: %q", res.Content)
	}
}

func TestProtectedFoldersAreNeverWritten(t *testing.T) {
	tw := newTestWorkspaceWith(t, WorkspaceOptions{ProtectedDirs: []string{"appdata"}})
	tw.write(t, ".git/config", "[core]\n")
	tw.write(t, "appdata/prototyper.db", "db")
	os.Symlink(".git", filepath.Join(tw.ws, "g"))
	os.Symlink("appdata", filepath.Join(tw.ws, "data"))
	cases := []struct{ name, tool, path string }{
		{"write into .git", "write_file", ".git/config"},
		{"write into .git in another case", "write_file", ".GIT/hooks/pre-commit"},
		{"write into a nested .git", "write_file", "vendor/lib/.git/config"},
		{"write through a link to .git", "write_file", "g/hooks/pre-commit"},
		{"edit through a link to .git", "edit_file", "g/config"},
		{"write into the data folder", "write_file", "appdata/prototyper.db"},
		{"write through a link to the data folder", "write_file", "data/new.db"},
		{"make a folder in .git", "make_dir", ".git/objects/xx"},
		{"delete .git", "delete_path", ".git"},
		{"delete the data folder's file", "delete_path", "data/prototyper.db"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			args := map[string]any{"path": c.path, "content": "x", "old_string": "core", "new_string": "x"}
			switch c.tool {
			case "write_file":
				delete(args, "old_string")
				delete(args, "new_string")
			case "edit_file":
				delete(args, "content")
			default:
				args = map[string]any{"path": c.path}
			}
			_, err := tw.exec(t, t.Context(), c.tool, args, nil)
			if !errors.Is(err, ErrProtectedPath) || !strings.Contains(err.Error(), "never modifies") {
				t.Fatalf("got %v, want ErrProtectedPath", err)
			}
		})
	}
	if tw.read(t, ".git/config") != "[core]\n" || tw.read(t, "appdata/prototyper.db") != "db" {
		t.Fatal("a protected file changed")
	}
	if res := tw.run(t, "read_file", map[string]any{"path": ".git/config"}); res.IsError {
		t.Fatalf("reading .git is allowed: %s", res.Content)
	}
}

func TestWorkspaceRefusesAFileAsItsFolder(t *testing.T) {
	f := filepath.Join(t.TempDir(), "f")
	os.WriteFile(f, nil, 0o644)
	if _, err := OpenWorkspace(f, WorkspaceOptions{}); err == nil || !strings.Contains(err.Error(), "not a folder") {
		t.Fatalf("got %v", err)
	}
}

func TestWorkspaceDefinitionsNeedNoFolderAndMatchAnOpenWorkspace(t *testing.T) {
	ws, err := OpenWorkspace(t.TempDir(), WorkspaceOptions{Commands: true, Servers: NewServers()}) // as the app opens one
	if err != nil {
		t.Fatal(err)
	}
	defer ws.Close()
	defs := WorkspaceDefinitions()
	open := ws.Tools()
	if len(defs) != len(open) {
		t.Fatalf("%d definitions, want %d", len(defs), len(open))
	}
	for i, d := range defs {
		o := open[i].Definition()
		if d.Name != o.Name || string(d.Schema) != string(o.Schema) || d.DefaultApproval != o.DefaultApproval || d.Mode != o.Mode {
			t.Errorf("definition %d = %+v, want %+v", i, d, o)
		}
	}
}
