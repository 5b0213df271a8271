package agentloop

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"prototyper/store"
)

// BenchmarkUndoBySize undoes a run that wrote 10, 100 and 1,000 files of 4 KiB over existing
// ones ("undo"), side by side with its peer ("rewrite"): the same files rewritten plainly, each
// written in place and fsynced in turn, as a program that saves files safely does. An undo
// must stay within 1.5 times its peer (and under 100 ms at 100 files). Each undo is followed,
// untimed, by a redo, so that one run serves every iteration.
func BenchmarkUndoBySize(b *testing.B) {
	for _, n := range []int{10, 100, 1000} {
		paths := make([]string, n)
		for i := range paths {
			paths[i] = fmt.Sprintf("pkg%d/file%d.txt", i%10, i)
		}
		b.Run(fmt.Sprintf("files=%d/undo", n), func(b *testing.B) {
			ub := newUndoBench(b, nil)
			var calls []store.ToolCall
			for i, p := range paths {
				ub.write(p, strings.Repeat("o", 4096), 0o644)
				calls = append(calls, writeCall(fmt.Sprintf("c%d", i), p, strings.Repeat("n", 4096)))
			}
			ub.run(calls...)
			b.ResetTimer()
			for b.Loop() {
				if res := ub.undo(UndoOptions{}); len(res.Paths) != n {
					b.Fatalf("undid %d paths", len(res.Paths))
				}
				b.StopTimer()
				if _, err := ub.a.Redo(b.Context(), ub.chat, UndoOptions{}); err != nil {
					b.Fatal(err)
				}
				b.StartTimer()
			}
		})
		b.Run(fmt.Sprintf("files=%d/rewrite", n), func(b *testing.B) {
			dir := b.TempDir()
			for _, p := range paths {
				if err := os.MkdirAll(filepath.Join(dir, filepath.Dir(p)), 0o755); err != nil {
					b.Fatal(err)
				}
				if err := os.WriteFile(filepath.Join(dir, p), []byte(strings.Repeat("n", 4096)), 0o644); err != nil {
					b.Fatal(err)
				}
			}
			content := []byte(strings.Repeat("o", 4096))
			for b.Loop() {
				for _, p := range paths {
					if err := rewriteSynced(filepath.Join(dir, p), content); err != nil {
						b.Fatal(err)
					}
				}
			}
		})
	}
}

// rewriteSynced writes content over the file at p, in place, and fsyncs it.
func rewriteSynced(p string, content []byte) error {
	f, err := os.OpenFile(p, os.O_WRONLY|os.O_TRUNC, 0)
	if err != nil {
		return err
	}
	if _, err := f.Write(content); err != nil {
		f.Close()
		return err
	}
	if err := f.Sync(); err != nil {
		f.Close()
		return err
	}
	return f.Close()
}

// BenchmarkUndoPlanBySize plans an undo of a run that wrote 1,000 and 10,000 paths: each path
// is looked up once, so planning grows with the paths, not with their square.
func BenchmarkUndoPlanBySize(b *testing.B) {
	for _, n := range []int{1000, 10000} {
		c := store.Change{ID: "run", Kind: store.ChangeRun}
		for i := range n {
			c.Paths = append(c.Paths, store.PathChange{Path: fmt.Sprintf("pkg%d/file%d.txt", i%10, i), Workspace: "/ws"})
		}
		b.Run(fmt.Sprintf("paths=%d", n), func(b *testing.B) {
			for b.Loop() {
				var plan revertPlan
				plan.add(c)
				if len(plan.paths) != n {
					b.Fatalf("planned %d paths", len(plan.paths))
				}
			}
		})
	}
}
