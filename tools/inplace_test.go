//go:build unix

package tools

import (
	"os"
	"path/filepath"
	"syscall"
	"testing"

	"prototyper/internal/testenv"
)

// An in-place open is made only on a regular file of the app's user with one name, judged on
// what it opened: a link is never followed (not even to a file of the workspace), a FIFO or a
// folder is never written, a file with another name is left to the rename, whose write
// refuses it; where nothing is, the file is created.
func TestAnInPlaceOpenTakesOnlyAPlainFileOfItsOwnAndNeverFollowsALink(t *testing.T) {
	dir := t.TempDir()
	write := func(name, content string) {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write("plain.txt", "plain\n")
	write("target.txt", "target\n")
	write("linked.txt", "linked\n")
	must(t, os.Symlink("target.txt", filepath.Join(dir, "link.txt")))
	must(t, os.Symlink("nowhere.txt", filepath.Join(dir, "dangling.txt")))
	must(t, os.Link(filepath.Join(dir, "linked.txt"), filepath.Join(dir, "other-name.txt")))
	must(t, syscall.Mkfifo(filepath.Join(dir, "fifo"), 0o644))
	must(t, os.Mkdir(filepath.Join(dir, "folder"), 0o755))
	d, err := os.Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	defer d.Close()

	for name, want := range map[string]bool{"plain.txt": true, "new.txt": true, "link.txt": false, "dangling.txt": false,
		"other-name.txt": false, "fifo": false, "folder": false} {
		f, created, ok := openInPlace(d, name, 0o600)
		if ok != want {
			t.Errorf("%s: opened in place %v, want %v", name, ok, want)
		}
		if ok {
			if created != (name == "new.txt") {
				t.Errorf("%s: created %v", name, created)
			}
			f.Close()
		}
	}
	if _, err := os.Lstat(filepath.Join(dir, "nowhere.txt")); !os.IsNotExist(err) {
		t.Errorf("the dangling link's target was made (%v): the open followed the link", err)
	}
	if got, _ := os.ReadFile(filepath.Join(dir, "target.txt")); string(got) != "target\n" {
		t.Errorf("target.txt holds %q", got)
	}
}

// A restore writes a plain file of the app's user over itself, in place (it stays the same
// file, as a program's save keeps it); a file of another user is replaced by one of the app's
// user, as any tool's write replaces it.
func TestARestoreWritesInPlaceOnlyAFileOfTheAppsUser(t *testing.T) {
	tw := newTestWorkspace(t)
	p := func(name string) string { return filepath.Join(tw.ws, name) }
	for _, name := range []string{"mine.txt", "theirs.txt", "read-only.txt"} {
		must(t, os.WriteFile(p(name), []byte("old "+name), 0o644))
	}
	must(t, os.Chmod(p("read-only.txt"), 0o444)) // the app's user cannot open it for writing, unless root
	other := os.Geteuid() + 1
	if os.Geteuid() == 0 {
		must(t, os.Chown(p("theirs.txt"), 65534, 65534))
		other = 65534
	}
	before := map[string]os.FileInfo{}
	for _, name := range []string{"mine.txt", "theirs.txt"} {
		before[name], _ = os.Stat(p(name))
	}
	states := []PathState{fileState("mine.txt", "new mine", 0o600), fileState("theirs.txt", "new theirs", 0o640),
		fileState("made.txt", "made", 0o640), fileState("read-only.txt", "new read-only", 0o444)}
	if err := tw.w.Restore(t.Context(), states); err != nil {
		t.Fatal(err)
	}
	for _, s := range states {
		fi, err := os.Stat(p(s.Path))
		got, _ := os.ReadFile(p(s.Path))
		if err != nil || string(got) != string(s.Content) || fi.Mode().Perm() != s.Mode {
			t.Fatalf("%s: %v, mode %v, holds %q; want %q with mode %v", s.Path, err, fi.Mode().Perm(), got, s.Content, s.Mode)
		}
	}
	after, _ := os.Stat(p("mine.txt"))
	if !os.SameFile(before["mine.txt"], after) {
		t.Errorf("mine.txt was replaced by another file: it was not written in place")
	}
	if os.Geteuid() == 0 { // only root can give a file to another user
		theirs, _ := os.Stat(p("theirs.txt"))
		if os.SameFile(before["theirs.txt"], theirs) || int(theirs.Sys().(*syscall.Stat_t).Uid) == other {
			t.Errorf("theirs.txt was written in place, keeping its owner %d", other)
		}
	}
	noTemporaryFiles(t, tw.ws)
}

// The in-place writes of a restore hold for an ordinary user, who cannot open a read-only
// file of their own for writing (testenv.AsUnprivileged says how the tests run again).
func TestInPlaceRestoresHoldForAnUnprivilegedUser(t *testing.T) {
	u := testenv.AsUnprivileged(t, "PROTOTYPER_TOOLS_UNPRIVILEGED")
	u.Run("-test.run", "TestAnInPlaceOpen|TestARestoreWritesInPlace|TestARestoreOfManyFiles|TestARestoreThatFails")
}

func must(t *testing.T, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
}
