package agentloop

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"prototyper/store"
)

// An undo writes a plain file over itself, in place: an app killed while writing one leaves
// it holding the start of what went there. The next start counts that file as one of the
// undo's writes under way, not as a change of the user's: it finishes the undo, and the file
// ends whole; when the undo must be taken back (another file did change since), the file ends
// whole as the undo found it. The way back writes whole, so the start of what the undo found
// is no write of the app's: a file the user cut so meanwhile is the user's, and stays.
func TestAFileAnUndoWasKilledWhileWritingInPlaceEndsWholeAtTheNextStart(t *testing.T) {
	v := func(name string, n int) string { return strings.Repeat(name+" version "+string(rune('0'+n))+"\n", 30) }
	undone := [3]string{v("a", 1), v("b", 1), v("c", 1)}
	for _, tc := range []struct {
		name    string
		halfA   func() string // what a.txt holds when the app is killed
		changeC bool          // the user changed c.txt since: the undo is taken back
		want    [3]string     // a.txt, b.txt and c.txt after the next start
	}{
		{"cut short after its start", func() string { return v("a", 1)[:200] }, false, undone},
		{"cut to nothing", func() string { return "" }, false, undone},
		{"taken back", func() string { return v("a", 1)[:200] }, true, [3]string{v("a", 2), v("b", 2), "the user's\n"}},
		{"cut by the user since", func() string { return v("a", 2)[:100] }, false, [3]string{v("a", 2)[:100], v("b", 2), v("c", 2)}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			b := newUndoBench(t, func(c *Config) { c.Store = commitFails{c.Store.(*store.DB)} })
			for _, f := range []string{"a", "b", "c"} {
				b.write(f+".txt", v(f, 1), 0o640)
			}
			b.run(writeCall("ca", "a.txt", v("a", 2)), writeCall("cb", "b.txt", v("b", 2)), writeCall("cc", "c.txt", v("c", 2)))
			if _, err := b.a.Undo(t.Context(), b.chat, UndoOptions{}); err == nil {
				t.Fatal("an undo that could not be recorded said it was done")
			}
			// the undo as a kill leaves it: a.txt part-written, b.txt not written yet
			b.write("a.txt", tc.halfA(), 0o640)
			b.write("b.txt", v("b", 2), 0o640)
			if tc.changeC {
				b.write("c.txt", "the user's\n", 0o640)
			}

			b.startAgain(newRecorder())
			if js, err := b.db.Reverts(""); err != nil || len(js) != 0 {
				t.Fatalf("%d undos still under way after the start (%v)", len(js), err)
			}
			b.want("a.txt", tc.want[0], 0o640)
			b.want("b.txt", tc.want[1], 0o640)
			b.want("c.txt", tc.want[2], 0o640)
			noLeftovers(t, b.dir)
		})
	}
}

// An undo writes a plain file of the user's over itself (the file keeps its identity, as a
// program's save keeps it), and puts a file back through a link in its way never: the link
// is replaced, what it points to is left as it was.
func TestAnUndoWritesAPlainFileInPlaceAndNeverThroughALink(t *testing.T) {
	b := newUndoBench(t, nil)
	b.write("plain.txt", "v1\n", 0o640)
	b.write("linked.txt", "v1\n", 0o644)
	b.run(writeCall("c1", "plain.txt", "v2\n"), writeCall("c2", "linked.txt", "v2\n"))
	before, err := os.Stat(filepath.Join(b.dir, "plain.txt"))
	if err != nil {
		t.Fatal(err)
	}
	outside := filepath.Join(t.TempDir(), "outside.txt")
	if err := os.WriteFile(outside, []byte("outside\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Remove(filepath.Join(b.dir, "linked.txt")); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(outside, filepath.Join(b.dir, "linked.txt")); err != nil {
		t.Fatal(err)
	}
	b.undo(UndoOptions{Force: true})
	b.want("plain.txt", "v1\n", 0o640)
	b.want("linked.txt", "v1\n", 0o644)
	if after, err := os.Stat(filepath.Join(b.dir, "plain.txt")); err != nil || !os.SameFile(before, after) {
		t.Errorf("plain.txt is another file after the undo (%v): it was replaced, not written in place", err)
	}
	if got, _ := os.ReadFile(outside); string(got) != "outside\n" {
		t.Errorf("the file the link pointed to holds %q: the undo wrote through the link", got)
	}
	noLeftovers(t, b.dir)
}

// A file the app did not keep as the undo found it (larger than what undo keeps) cannot come
// back if the undo fails part-way: it is written whole, to a temporary file renamed over it,
// never in place, so that a write cut short leaves it as it was and not a part of the file
// the undo puts back.
func TestAnUndoWritesWholeAFileItCouldNotPutBack(t *testing.T) {
	b := newUndoBench(t, nil)
	if _, err := b.db.UpdateSettings(func(s *store.Settings) error { s.CheckpointMaxBytes = 64; return nil }); err != nil {
		t.Fatal(err)
	}
	b.write("small.txt", "small\n", 0o640)
	b.write("kept.txt", "kept v1\n", 0o640)
	b.run(writeCall("c1", "small.txt", strings.Repeat("large\n", 100)), writeCall("c2", "kept.txt", "kept v2\n"))
	stat := func(name string) os.FileInfo {
		fi, err := os.Stat(filepath.Join(b.dir, name))
		if err != nil {
			t.Fatal(err)
		}
		return fi
	}
	large, kept := stat("small.txt"), stat("kept.txt")
	b.undo(UndoOptions{})
	b.want("small.txt", "small\n", 0o640)
	b.want("kept.txt", "kept v1\n", 0o640)
	if os.SameFile(large, stat("small.txt")) {
		t.Error("small.txt, too large to keep as the undo found it, was written in place")
	}
	if !os.SameFile(kept, stat("kept.txt")) {
		t.Error("kept.txt, kept as the undo found it, was not written in place")
	}
	noLeftovers(t, b.dir)
}
