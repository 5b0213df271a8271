//go:build linux

package tools

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"sync"
	"sync/atomic"
	"testing"

	"golang.org/x/sys/unix"
)

// A folder is swapped for a symbolic link to the outside, atomically and
// over and over, while writes into it are in progress. Every write lands
// inside the workspace or is refused; the outside never changes.
func TestFolderSwappedForASymlinkDuringWritesNeverLeaksOutside(t *testing.T) {
	tw := newTestWorkspace(t)
	before := snapshot(t, tw.secret)
	dir, swap := filepath.Join(tw.ws, "a"), filepath.Join(tw.ws, "swap")
	if err := os.Mkdir(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(tw.out, swap); err != nil {
		t.Fatal(err)
	}
	if err := unix.Renameat2(unix.AT_FDCWD, dir, unix.AT_FDCWD, swap, unix.RENAME_EXCHANGE); err != nil {
		t.Skipf("the file system cannot exchange names atomically: %v", err)
	}
	ctx, stop := context.WithCancel(t.Context())
	var swaps atomic.Int64
	var wg sync.WaitGroup
	wg.Go(func() {
		for ctx.Err() == nil {
			if err := unix.Renameat2(unix.AT_FDCWD, dir, unix.AT_FDCWD, swap, unix.RENAME_EXCHANGE); err != nil {
				t.Error(err)
				return
			}
			swaps.Add(1)
		}
	})
	var written, refused int
	for i := range 400 {
		name := "a/secret.txt"
		if i%2 == 1 {
			name = "a/new.txt"
		}
		_, err := tw.exec(t, ctx, "write_file", map[string]any{"path": name, "content": "pwned"}, nil)
		var pe *PathError
		switch {
		case err == nil:
			written++
		case errors.As(err, &pe) && (errors.Is(err, ErrOutsideWorkspace) || errors.Is(err, ErrNotFound) || errors.Is(err, ErrWrongKind)):
			refused++
		default:
			t.Fatalf("write %d: unexpected error %v", i, err)
		}
	}
	stop()
	wg.Wait()
	before.check(t)
	t.Logf("%d writes landed inside, %d were refused, %d swaps", written, refused, swaps.Load())
	if leftovers := tempFiles(t, tw.ws); len(leftovers) > 0 {
		t.Fatalf("temporary files left: %v", leftovers)
	}
}
