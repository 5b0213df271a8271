package tools

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"testing"
)

// fileSnapshot is a file's content and inode, to prove it was not touched.
type fileSnapshot struct {
	path    string
	content string
	ino     uint64
	dir     []string // names in the file's folder
}

func snapshot(t testing.TB, path string) fileSnapshot {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	fi, err := os.Stat(path)
	if err != nil {
		t.Fatal(err)
	}
	return fileSnapshot{path: path, content: string(b), ino: fi.Sys().(*syscall.Stat_t).Ino, dir: names(t, filepath.Dir(path))}
}

func names(t testing.TB, dir string) []string {
	t.Helper()
	entries, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	var n []string
	for _, e := range entries {
		n = append(n, e.Name())
	}
	return n
}

func (s fileSnapshot) check(t testing.TB) {
	t.Helper()
	after := snapshot(t, s.path)
	if after.content != s.content || after.ino != s.ino {
		t.Fatalf("outside file changed: content %q inode %d, was %q inode %d", after.content, after.ino, s.content, s.ino)
	}
	if !slices.Equal(after.dir, s.dir) {
		t.Fatalf("outside folder changed: %v, was %v", after.dir, s.dir)
	}
}

func TestEscapeCorpusIsRefusedAndLeavesTheOutsideUntouched(t *testing.T) {
	type setup func(t *testing.T, tw *testWorkspace)
	symlink := func(target, name string) setup {
		return func(t *testing.T, tw *testWorkspace) {
			target := strings.ReplaceAll(target, "$OUT", tw.out)
			if err := os.Symlink(target, filepath.Join(tw.ws, name)); err != nil {
				t.Fatal(err)
			}
		}
	}
	cases := []struct {
		name    string
		path    string // $OUT is the outside folder
		setup   []setup
		want    []error // any of these sentinels
		message string  // the refusal must say this
	}{
		{"parent folder", "../outside/secret.txt", nil, []error{ErrOutsideWorkspace}, "outside the workspace; use a path relative to the workspace folder"},
		{"climbing out from a subfolder", "a/../../outside/secret.txt", nil, []error{ErrOutsideWorkspace}, "is outside the workspace"},
		{"absolute path", "$OUT/secret.txt", nil, []error{ErrOutsideWorkspace}, "is absolute; use a path relative"},
		{"trailing /..", "a/../..", nil, []error{ErrOutsideWorkspace}, "is outside the workspace"},
		{"symlink as last component", "link", []setup{symlink("$OUT/secret.txt", "link")}, []error{ErrOutsideWorkspace, ErrSymlink}, "symbolic link"},
		{"relative symlink as last component", "rlink", []setup{symlink("../outside/secret.txt", "rlink")}, []error{ErrOutsideWorkspace, ErrSymlink}, "symbolic link"},
		{"symlink as middle component", "dir/secret.txt", []setup{symlink("$OUT", "dir")}, []error{ErrOutsideWorkspace}, `"dir" is a symbolic link to`},
		{"dangling symlink to outside", "dangling", []setup{symlink("$OUT/created-by-agent.txt", "dangling")}, []error{ErrOutsideWorkspace, ErrSymlink}, "symbolic link"},
		{"chain of symlinks", "c1", []setup{symlink("c2", "c1"), symlink("c3", "c2"), symlink("../outside/secret.txt", "c3")}, []error{ErrOutsideWorkspace, ErrSymlink}, "symbolic link"},
		{"chain of symlinks as middle component", "d1/secret.txt", []setup{symlink("d2", "d1"), symlink("$OUT", "d2")}, []error{ErrOutsideWorkspace}, "leads outside the workspace"},
		{"hard link to an outside file", "hard", []setup{func(t *testing.T, tw *testWorkspace) {
			if err := os.Link(tw.secret, filepath.Join(tw.ws, "hard")); err != nil {
				t.Skipf("hard links are not possible here: %v", err)
			}
		}}, []error{ErrHardLink}, "is a hard link"},
		{"NUL byte", "a\x00/../../outside/secret.txt", nil, []error{ErrInvalidPath}, "NUL byte"},
		{"10,000-character path", strings.Repeat("a/", 5000), nil, []error{ErrInvalidPath}, "over the limit of 4096"},
		{"two dot leader for ..", "\u2025/outside/secret.txt", nil, []error{ErrInvalidPath}, `looks like ".."`},
		{"fullwidth full stops", "\uFF0E\uFF0E/outside/secret.txt", nil, []error{ErrInvalidPath}, `looks like "."`},
		{"division slash", "..\u2215outside\u2215secret.txt", nil, []error{ErrInvalidPath}, `looks like "/"`},
		{"right-to-left override", "\u202Etxt.terces", nil, []error{ErrInvalidPath}, "invisible character"},
	}
	tools := []struct {
		name string
		args func(path string) map[string]any
	}{
		{"write_file", func(p string) map[string]any { return map[string]any{"path": p, "content": "pwned"} }},
		{"edit_file", func(p string) map[string]any {
			return map[string]any{"path": p, "old_string": "secret", "new_string": "pwned"}
		}},
		{"read_file", func(p string) map[string]any { return map[string]any{"path": p} }},
		{"make_dir", func(p string) map[string]any { return map[string]any{"path": p + "/sub"} }},
	}
	for _, c := range cases {
		for _, tool := range tools {
			t.Run(c.name+"/"+tool.name, func(t *testing.T) {
				tw := newTestWorkspace(t)
				os.Mkdir(filepath.Join(tw.ws, "a"), 0o755)
				for _, s := range c.setup {
					s(t, tw)
				}
				before := snapshot(t, tw.secret)
				p := strings.ReplaceAll(c.path, "$OUT", tw.out)
				err := tw.refusal(t, tool.name, tool.args(p), c.path)
				want := c.want
				if tool.name == "make_dir" { // "hard/sub": a file used as a folder
					want = append(want, ErrWrongKind)
				}
				if !slices.ContainsFunc(want, func(e error) bool { return errors.Is(err, e) }) {
					t.Fatalf("got %v, want one of %v", err, c.want)
				}
				if tool.name != "make_dir" && !strings.Contains(err.Error(), c.message) {
					t.Fatalf("the refusal %q does not say %q", err, c.message)
				}
				if len(err.Error()) > 400 {
					t.Fatalf("the refusal is %d bytes long; the model needs one clear sentence", len(err.Error()))
				}
				before.check(t)
				if leftovers := tempFiles(t, tw.ws); len(leftovers) > 0 {
					t.Fatalf("temporary files left: %v", leftovers)
				}
			})
		}
	}
}

func TestSymlinksThatStayInsideAreFollowedForReading(t *testing.T) {
	tw := newTestWorkspace(t)
	tw.write(t, "real/notes.txt", "inside\n")
	os.Symlink("real", filepath.Join(tw.ws, "alias"))
	os.Symlink("real/notes.txt", filepath.Join(tw.ws, "notes"))
	for _, p := range []string{"alias/notes.txt", "notes", "real/../real/notes.txt"} {
		if res := tw.run(t, "read_file", map[string]any{"path": p}); res.IsError || res.Content != "inside\n" {
			t.Fatalf("%s: %+v", p, res)
		}
	}
	// Writing through a folder link inside is fine; writing to a file link
	// names the target instead of replacing the link.
	if res := tw.run(t, "write_file", map[string]any{"path": "alias/new.txt", "content": "n"}); res.IsError {
		t.Fatal(res.Content)
	}
	if tw.read(t, "real/new.txt") != "n" {
		t.Fatal("write through an inside folder link went elsewhere")
	}
	_, err := tw.exec(t, t.Context(), "write_file", map[string]any{"path": "notes", "content": "x"}, nil)
	if !errors.Is(err, ErrSymlink) || !strings.Contains(err.Error(), `"real/notes.txt"`) || !strings.Contains(err.Error(), "write to the path it points to") {
		t.Fatalf("got %v", err)
	}
	// A link in a subfolder to a file elsewhere in the workspace is inside too.
	os.Symlink("../real/notes.txt", filepath.Join(tw.ws, "real", "up"))
	_, err = tw.exec(t, t.Context(), "write_file", map[string]any{"path": "real/up", "content": "x"}, nil)
	if !errors.Is(err, ErrSymlink) || errors.Is(err, ErrOutsideWorkspace) {
		t.Fatalf("got %v", err)
	}
}

func TestUnicodeNamesThatAreNotLookAlikesAreFine(t *testing.T) {
	tw := newTestWorkspace(t)
	for _, p := range []string{"café/menü.txt", "日本語/ノート.md", "emoji-🚀.txt", "a..b.txt", "..hidden"} {
		if res := tw.run(t, "write_file", map[string]any{"path": p, "content": "ok"}); res.IsError {
			t.Fatalf("%s: %s", p, res.Content)
		}
		if tw.read(t, p) != "ok" {
			t.Fatalf("%s not written", p)
		}
	}
}

// A hard link appearing at the target between the check and the rename
// must not carry the write outside: the rename replaces the directory entry.
func TestAtomicWriteReplacesAHardLinkInsteadOfWritingThroughIt(t *testing.T) {
	tw := newTestWorkspace(t)
	before := snapshot(t, tw.secret)
	target := filepath.Join(tw.ws, "late.txt")
	check := func(os.FileInfo) error {
		if err := os.Link(tw.secret, target); err != nil {
			t.Skipf("hard links are not possible here: %v", err)
		}
		return nil
	}
	_, err := tw.w.replaceFileWith(t.Context(), "late.txt", writeReal, check, maxDiffInput,
		func([]byte) ([]byte, error) { return []byte("pwned"), nil }, func(any) {})
	if err != nil {
		t.Fatal(err)
	}
	before.check(t)
	if tw.read(t, "late.txt") != "pwned" {
		t.Fatal("the write did not land inside the workspace")
	}
}

func TestCancelledWriteLeavesNoTempFileAndNoChange(t *testing.T) {
	for _, existing := range []bool{false, true} {
		name := map[bool]string{false: "new file", true: "existing file"}[existing]
		t.Run(name, func(t *testing.T) {
			tw := newTestWorkspace(t)
			if existing {
				tw.write(t, "dir/big.bin", "old\n")
			}
			ctx, cancel := context.WithCancel(t.Context())
			defer cancel()
			content := strings.Repeat("0123456789abcdef", 1<<16) // 1 MiB: several chunks
			_, err := tw.exec(t, ctx, "write_file", map[string]any{"path": "dir/big.bin", "content": content},
				func(any) { cancel() }) // cancel after the first chunk
			if !errors.Is(err, context.Canceled) || !strings.Contains(err.Error(), "was not changed") || strings.Contains(err.Error(), "context canceled") {
				t.Fatalf("got %v, want a cancellation error", err)
			}
			if leftovers := tempFiles(t, tw.ws); len(leftovers) > 0 {
				t.Fatalf("temporary files left: %v", leftovers)
			}
			_, statErr := os.Stat(filepath.Join(tw.ws, "dir/big.bin"))
			if existing && tw.read(t, "dir/big.bin") != "old\n" || !existing && !os.IsNotExist(statErr) {
				t.Fatal("a cancelled write changed the file")
			}
		})
	}
}

func TestCancelledSearchAndListStop(t *testing.T) {
	tw := newTestWorkspace(t)
	tw.write(t, "a/b.txt", "x\n")
	ctx, cancel := context.WithCancel(t.Context())
	cancel()
	for tool, args := range map[string]map[string]any{"search_files": {"pattern": "x"}, "list_dir": {"recursive": true}} {
		_, err := tw.exec(t, ctx, tool, args, nil)
		if !errors.Is(err, context.Canceled) || strings.Contains(err.Error(), "context canceled") {
			t.Fatalf("%s: got %v, want a cancellation said in a person's words", tool, err)
		}
	}
}
