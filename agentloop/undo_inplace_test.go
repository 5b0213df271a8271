package agentloop

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"prototyper/store"
	"prototyper/tools"
)

// An undo writes a plain file over itself, in place: an app killed while writing one leaves
// it holding the start of what went there. The next start counts that file as one of the
// undo's writes under way, not as a change of the user's: it finishes the undo, and the file
// ends whole; when the undo must be taken back (another file did change since), the file ends
// whole as the undo found it.
func TestAFileAnUndoWasKilledWhileWritingInPlaceEndsWholeAtTheNextStart(t *testing.T) {
	v := func(name string, n int) string { return strings.Repeat(name+" version "+string(rune('0'+n))+"\n", 30) }
	for _, tc := range []struct {
		name    string
		halfA   func() string // what a.txt holds when the app is killed
		changeC bool          // the user changed c.txt since: the undo is taken back
	}{
		{"cut short after its start", func() string { return v("a", 1)[:200] }, false},
		{"cut to nothing", func() string { return "" }, false},
		{"taken back", func() string { return v("a", 1)[:200] }, true},
		{"killed again while taken back", func() string { return v("a", 2)[:100] }, true},
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

			again := NewAgent(Config{Store: b.db, Emitter: newRecorder(), Tools: WorkspaceTools(tools.WorkspaceOptions{}), Workspace: b.dir, DefaultModel: "fake"})
			defer again.Shutdown(t.Context())
			if err := again.FinishInterrupted(t.Context()); err != nil {
				t.Fatal(err)
			}
			if js, err := b.db.Reverts(""); err != nil || len(js) != 0 {
				t.Fatalf("%d undos still under way after the start (%v)", len(js), err)
			}
			if tc.changeC {
				b.want("a.txt", v("a", 2), 0o640)
				b.want("b.txt", v("b", 2), 0o640)
				b.want("c.txt", "the user's\n", 0o640)
				return
			}
			b.want("a.txt", v("a", 1), 0o640)
			b.want("b.txt", v("b", 1), 0o640)
			b.want("c.txt", v("c", 1), 0o640)
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
