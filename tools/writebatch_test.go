package tools

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// fileState is the state Restore puts back for a file holding content with mode.
func fileState(p, content string, mode fs.FileMode) PathState {
	return PathState{Path: p, Kind: KindFile, Mode: mode, Size: int64(len(content)), Hash: HashContent([]byte(content)), Content: []byte(content)}
}

// noTemporaryFiles fails if a write's temporary file is left anywhere under dir.
func noTemporaryFiles(t *testing.T, dir string) {
	t.Helper()
	_ = filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if _, ok := leftoverOf(d.Name()); ok {
			t.Errorf("a temporary file is left: %s", p)
		}
		return nil
	})
}

func TestARestoreThatFailsBeforeItsRenamesChangesNoFileAndLeavesNoTemporaryFile(t *testing.T) {
	tw := newTestWorkspace(t)
	for _, p := range []string{"a.txt", "b.txt"} {
		os.WriteFile(filepath.Join(tw.ws, p), []byte("old"), 0o644)
	}
	bad := fileState("b.txt", "new b", 0o644)
	bad.Content = []byte("not what the hash says")
	err := tw.w.Restore(t.Context(), []PathState{fileState("a.txt", "new a", 0o644), bad})
	if !errors.Is(err, ErrInvalidPath) {
		t.Fatalf("restore with a content that does not match its hash: %v", err)
	}
	if got, _ := os.ReadFile(filepath.Join(tw.ws, "a.txt")); string(got) != "old" {
		t.Errorf("a.txt holds %q: a file was replaced before the restore failed", got)
	}
	noTemporaryFiles(t, tw.ws)

	ctx, cancel := context.WithCancel(t.Context())
	cancel()
	if err := tw.w.Restore(ctx, []PathState{fileState("a.txt", "new a", 0o644)}); !errors.Is(err, context.Canceled) {
		t.Fatalf("a cancelled restore: %v", err)
	}
	if got, _ := os.ReadFile(filepath.Join(tw.ws, "a.txt")); string(got) != "old" {
		t.Errorf("a.txt holds %q after a cancelled restore", got)
	}
	noTemporaryFiles(t, tw.ws)
}

func TestARestoreOfManyFilesPutsEachBackWithItsContentAndMode(t *testing.T) {
	tw := newTestWorkspace(t)
	var states []PathState
	for d := range 7 {
		states = append(states, PathState{Path: fmt.Sprintf("d%d", d), Kind: KindDir, Mode: 0o755})
	}
	n := 2*batchFiles + 7 // more than one batch, and a last one not full
	for i := range n {
		p := fmt.Sprintf("d%d/f%d.txt", i%7, i)
		mode := fs.FileMode(0o644)
		if i%3 == 0 {
			mode = 0o600
		}
		if i%2 == 0 { // half exist with other content and mode, half are made
			os.MkdirAll(filepath.Join(tw.ws, filepath.Dir(p)), 0o755)
			os.WriteFile(filepath.Join(tw.ws, p), []byte("other"), 0o666)
		}
		states = append(states, fileState(p, strings.Repeat(fmt.Sprint(i), 100), mode))
	}
	if err := tw.w.Restore(t.Context(), states); err != nil {
		t.Fatal(err)
	}
	for _, s := range states {
		if s.Kind != KindFile {
			continue
		}
		fi, err := os.Stat(filepath.Join(tw.ws, s.Path))
		got, _ := os.ReadFile(filepath.Join(tw.ws, s.Path))
		if err != nil || string(got) != string(s.Content) || fi.Mode().Perm() != s.Mode {
			t.Fatalf("%s: %v, mode %v, holds %.20q; want mode %v", s.Path, err, fi.Mode().Perm(), got, s.Mode)
		}
	}
	noTemporaryFiles(t, tw.ws)
}
