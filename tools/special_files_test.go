//go:build unix

package tools

import (
	"context"
	"errors"
	"net"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"sync/atomic"
	"syscall"
	"testing"
	"time"
)

// specialWorkspace is a workspace holding a FIFO, a unix socket and, where
// the account may create one, a character device (the equivalent of
// /dev/zero), each also behind a symbolic link inside the workspace.
func specialWorkspace(t testing.TB) (tw *testWorkspace, kinds map[string]string) {
	t.Helper()
	tw = newTestWorkspace(t)
	kinds = map[string]string{"fifo": "a named pipe (FIFO)", "sock": "a socket"}
	if err := syscall.Mkfifo(filepath.Join(tw.ws, "fifo"), 0o644); err != nil {
		t.Fatal(err)
	}
	// A socket's path must be short; bind it in a short folder and move it in.
	short, err := os.MkdirTemp("", "s")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(short) })
	l, err := net.Listen("unix", filepath.Join(short, "s"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { l.Close() })
	if err := os.Rename(filepath.Join(short, "s"), filepath.Join(tw.ws, "sock")); err != nil {
		t.Fatal(err)
	}
	if runtime.GOOS == "linux" {
		const zero = 1<<8 | 5 // major 1, minor 5: /dev/zero
		if err := syscall.Mknod(filepath.Join(tw.ws, "zero"), syscall.S_IFCHR|0o666, zero); err == nil {
			kinds["zero"] = "a character device"
		}
	}
	for name := range kinds {
		if err := os.Symlink(name, filepath.Join(tw.ws, name+"-link")); err != nil {
			t.Fatal(err)
		}
	}
	return tw, kinds
}

// returnsPromptly runs fn and fails the test if it has not returned within a
// generous bound; a tool that waits on a FIFO never returns at all, so the
// FIFO's other end is then opened to let it go.
func returnsPromptly(t testing.TB, fifo string, fn func()) {
	t.Helper()
	done := make(chan struct{})
	go func() {
		defer close(done)
		fn()
	}()
	select {
	case <-done:
		return
	case <-time.After(10 * time.Second):
	}
	for _, flag := range []int{os.O_WRONLY, os.O_RDONLY} {
		if f, err := os.OpenFile(fifo, flag|syscall.O_NONBLOCK, 0); err == nil {
			defer f.Close()
		}
	}
	<-done
	t.Fatal("the tool waited on the FIFO instead of refusing it")
}

func TestToolsRefuseFIFOsSocketsAndDevicesWithoutOpeningThem(t *testing.T) {
	type call struct {
		tool string
		args func(name string) map[string]any
		says string // the refusal; %s is the kind of file
	}
	calls := []call{
		{"read_file", func(n string) map[string]any { return map[string]any{"path": n} }, "is %s, not a regular file"},
		{"edit_file", func(n string) map[string]any {
			return map[string]any{"path": n, "old_string": "a", "new_string": "b"}
		}, "%s"},
		{"write_file", func(n string) map[string]any { return map[string]any{"path": n, "content": "x"} }, "%s"},
		{"list_dir", func(n string) map[string]any { return map[string]any{"path": n} }, "is %s, not a folder"},
		{"write_file into it as a folder", func(n string) map[string]any { return map[string]any{"path": n + "/x", "content": "x"} }, "goes through a file as if it were a folder"},
		{"edit_file into it as a folder", func(n string) map[string]any {
			return map[string]any{"path": n + "/x", "old_string": "a", "new_string": "b"}
		}, "goes through a file as if it were a folder"},
	}
	tw, kinds := specialWorkspace(t)
	for name, kind := range kinds {
		for _, target := range []string{name, name + "-link"} {
			for _, c := range calls {
				t.Run(target+"/"+c.tool, func(t *testing.T) {
					tool, _, _ := strings.Cut(c.tool, " ")
					var err error
					returnsPromptly(t, filepath.Join(tw.ws, "fifo"), func() {
						_, err = tw.exec(t, t.Context(), tool, c.args(target), nil)
					})
					want := c.says
					if strings.Contains(want, "%s") {
						want = strings.ReplaceAll(want, "%s", kind)
					}
					if (tool == "write_file" || tool == "edit_file") && target != name && !strings.Contains(c.tool, "folder") {
						want = "is a symbolic link" // never written through, whatever it leads to
					}
					if err == nil || !strings.Contains(err.Error(), want) {
						t.Fatalf("got %v, want a refusal saying %q", err, want)
					}
				})
			}
		}
	}
	t.Run("search_files skips them", func(t *testing.T) {
		tw.write(t, "notes.txt", "a note\n")
		for _, p := range []string{".", "fifo", "fifo-link", "sock"} {
			var res Result
			returnsPromptly(t, filepath.Join(tw.ws, "fifo"), func() {
				res = tw.run(t, "search_files", map[string]any{"pattern": ".", "path": p})
			})
			if res.IsError || strings.Contains(res.Content, "fifo") || strings.Contains(res.Content, "sock") {
				t.Fatalf("search of %q: %+v", p, res)
			}
		}
	})
	t.Run("list_dir lists them without opening them", func(t *testing.T) {
		var res Result
		returnsPromptly(t, filepath.Join(tw.ws, "fifo"), func() { res = tw.run(t, "list_dir", map[string]any{"recursive": true}) })
		for _, line := range []string{"fifo (a named pipe (FIFO))", "sock (a socket)", "fifo-link -> fifo"} {
			if !strings.Contains(res.Content, line) {
				t.Fatalf("the listing lacks %q:\n%s", line, res.Content)
			}
		}
	})
	t.Run("delete_path removes one by name", func(t *testing.T) {
		if res := tw.run(t, "delete_path", map[string]any{"path": "sock"}); res.IsError || res.Content != "Deleted socket sock." {
			t.Fatalf("%+v", res)
		}
	})
	for name := range kinds {
		fi, err := os.Lstat(filepath.Join(tw.ws, name))
		if name != "sock" && (err != nil || fi.Mode().IsRegular()) {
			t.Fatalf("%s was replaced: %v %v", name, fi, err)
		}
	}
}

// A regular file swapped for a FIFO after it was checked and before it is
// opened must be refused, not waited on: the open does not block, and the
// open file is checked again.
func TestAFileSwappedForAFIFOAfterItsCheckIsRefusedWithoutWaiting(t *testing.T) {
	tw := newTestWorkspace(t)
	tw.write(t, "swapped", "text\n")
	p := filepath.Join(tw.ws, "swapped")
	checks := 0
	swap := func(os.FileInfo) error {
		if checks++; checks == 1 {
			if err := os.Remove(p); err != nil {
				t.Fatal(err)
			}
			if err := syscall.Mkfifo(p, 0o644); err != nil {
				t.Fatal(err)
			}
		}
		return nil
	}
	var err error
	returnsPromptly(t, p, func() {
		var f *os.File
		f, _, err = openRegular(tw.w.root, "swapped", "swapped", swap)
		if f != nil {
			f.Close()
		}
	})
	if !errors.Is(err, ErrWrongKind) || !strings.Contains(err.Error(), "a named pipe (FIFO)") {
		t.Fatalf("got %v, want the FIFO refused", err)
	}
}

func TestDevicesReachedThroughLinksAreRefused(t *testing.T) {
	tw := newTestWorkspace(t)
	depth := strings.Repeat("../", strings.Count(tw.ws, "/"))
	for name, target := range map[string]string{"abs": "/dev/zero", "rel": depth + "dev/zero", "tty": "/dev/tty"} {
		os.Symlink(target, filepath.Join(tw.ws, name))
		for _, tool := range []string{"read_file", "edit_file", "search_files"} {
			args := map[string]any{"path": name, "old_string": "a", "new_string": "b"}
			if tool == "search_files" {
				args = map[string]any{"path": name, "pattern": "."}
			}
			if tool == "read_file" {
				args = map[string]any{"path": name}
			}
			_, err := tw.exec(t, t.Context(), tool, args, nil)
			if !errors.Is(err, ErrOutsideWorkspace) {
				t.Fatalf("%s of %s -> %s: got %v, want it refused as outside the workspace", tool, name, target, err)
			}
		}
	}
}

// read_file of a huge file reads its first lines and stops at MaxReadBytes:
// the file below is 64 GiB, text at the start and a hole of NUL bytes after,
// so reading on would either take minutes or report a binary file.
func TestReadFileOfAHugeFileReadsOnlyItsStart(t *testing.T) {
	tw := newTestWorkspace(t)
	p := filepath.Join(tw.ws, "huge.log")
	tw.write(t, "huge.log", strings.Repeat("a line of the log\n", 100_000)) // 1.7 MiB of text
	if err := os.Truncate(p, 64<<30); err != nil {
		t.Skipf("no sparse files here: %v", err)
	}
	res := tw.run(t, "read_file", map[string]any{"path": "huge.log"})
	if res.IsError {
		t.Fatal(res.Content)
	}
	if res.Details.Bytes > 256<<10 || !strings.Contains(res.Content, "call read_file with offset") || !strings.Contains(res.Content, "68719476736 bytes in all") {
		t.Fatalf("got %d bytes, ending %q", res.Details.Bytes, res.Content[max(0, len(res.Content)-200):])
	}
}

// countdown is a context that reports itself cancelled after a number of
// looks at Err: a deterministic "Stop pressed while the tool was working".
type countdown struct {
	context.Context
	left atomic.Int64
}

func cancelledAfter(n int64) *countdown {
	c := &countdown{Context: context.Background()}
	c.left.Store(n)
	return c
}

func (c *countdown) Err() error {
	if c.left.Add(-1) < 0 {
		return context.Canceled
	}
	return nil
}

func TestLongToolsStopWhenCancelledPartWay(t *testing.T) {
	tw := newTestWorkspaceWith(t, WorkspaceOptions{MaxSearchResults: 1 << 20, MaxListEntries: 1 << 20, MaxSearchFile: 16 << 20})
	tw.write(t, "long.txt", strings.Repeat("line\n", 1<<20))
	for i := range 40 {
		tw.write(t, filepath.Join("tree", string(rune('a'+i%26)), strings.Repeat("f", 1+i/26)+".txt"), strings.Repeat("match\n", 10_000))
	}
	cases := []struct {
		name, tool string
		args       map[string]any
	}{
		{"read_file scanning to a far line", "read_file", map[string]any{"path": "long.txt", "offset": 1 << 21}},
		{"search_files through many files", "search_files", map[string]any{"pattern": "match"}},
		{"search_files through one long file", "search_files", map[string]any{"pattern": "line", "path": "long.txt"}},
		{"list_dir of a tree", "list_dir", map[string]any{"recursive": true}},
		{"write_file of a large content", "write_file", map[string]any{"path": "out.txt", "content": strings.Repeat("x", 4<<20)}},
		{"edit_file of a long file", "edit_file", map[string]any{"path": "long.txt", "old_string": "line", "new_string": "l", "expected_replacements": 1 << 20}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			_, err := tw.exec(t, cancelledAfter(3), c.tool, c.args, nil)
			if !errors.Is(err, context.Canceled) {
				t.Fatalf("got %v, want the call to stop on the cancelled context", err)
			}
		})
	}
	if _, err := os.Stat(filepath.Join(tw.ws, "out.txt")); !os.IsNotExist(err) {
		t.Fatal("a cancelled write created its file")
	}
	if tw.read(t, "long.txt") != strings.Repeat("line\n", 1<<20) {
		t.Fatal("a cancelled edit changed the file")
	}
}
