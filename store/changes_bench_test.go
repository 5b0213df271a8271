package store

import (
	"fmt"
	"testing"

	bolt "go.etcd.io/bbolt"

	"prototyper/tools"
)

// seedChanges gives a new chat runs changes of paths files each, every path with the states
// before and after (setup, in one transaction, not measured).
func seedChanges(tb testing.TB, db *DB, runs, paths int) Chat {
	tb.Helper()
	c := mustChat(tb, db, Chat{Title: "bench"})
	state := func(p string, v int) tools.PathState {
		content := []byte(fmt.Sprintf("%s version %d", p, v))
		return tools.PathState{Path: p, Kind: tools.KindFile, Mode: 0o644, Size: int64(len(content)), Hash: tools.HashContent(content)}
	}
	err := db.update("seed", func(tx *bolt.Tx) error {
		s, err := changeBuckets(tx, c.ID)
		if err != nil {
			return err
		}
		for r := range runs {
			h := &changeHead{Change: Change{ID: fmt.Sprint("run", r), ChatID: c.ID, Kind: ChangeRun, CreatedAt: db.now()}}
			key, err := s.newKey(h.ID)
			if err != nil {
				return err
			}
			for i := range paths {
				p := fmt.Sprintf("src/pkg%d/file%d.go", i%5, i)
				after := state(p, r+1)
				if err := s.addPath(key, h, PathChange{Path: p, Workspace: "/home/user/project", CallID: fmt.Sprint("call", i), Before: state(p, r), After: &after}); err != nil {
					return err
				}
			}
			if err := s.putHead(key, h); err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		tb.Fatal(err)
	}
	return c
}

// BenchmarkChangesByHistory reads a chat's changes at 10, 100 and 1,000 runs of 20 files each,
// the three ways side by side: "whole" decodes every change with every path's states, as
// opening a chat and every undo did; "outlines" is what opening a chat reads (each change's
// head and the names of the paths it changed); "last-run" is what an undo of the last run
// reads (the changes' heads, then that run's paths). Only "whole" may grow with a path's states.
func BenchmarkChangesByHistory(b *testing.B) {
	for _, runs := range []int{10, 100, 1000} {
		db, _ := openTestDB(b, nil)
		c := seedChanges(b, db, runs, 20)
		b.Run(fmt.Sprintf("runs=%d/whole", runs), func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				if got, err := db.Changes(c.ID); err != nil || len(got) != runs {
					b.Fatal(len(got), err)
				}
			}
		})
		b.Run(fmt.Sprintf("runs=%d/outlines", runs), func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				if got, err := db.ChangeOutlines(c.ID); err != nil || len(got) != runs || len(got[0].Changed) != 20 {
					b.Fatal(len(got), err)
				}
			}
		})
		b.Run(fmt.Sprintf("runs=%d/last-run", runs), func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				got, err := db.ChangeHeads(c.ID)
				if err != nil {
					b.Fatal(err)
				}
				if last, err := db.RunChange(c.ID, got[len(got)-1].ID); err != nil || len(last.Paths) != 20 {
					b.Fatal(err)
				}
			}
		})
	}
}

// BenchmarkACallsCheckpointReadsItsPaths is what the loop reads after each call of a run that
// has touched 10, 100 and 1,000 paths, to say what the run leaves at the call's one path:
// "whole" decodes the run's whole change (RunChange), "named" the path asked for only
// (RunChangeAt). Over a run of n calls, "whole" costs n² path decodings, "named" n.
func BenchmarkACallsCheckpointReadsItsPaths(b *testing.B) {
	for _, paths := range []int{10, 100, 1000} {
		db, _ := openTestDB(b, nil)
		c := seedChanges(b, db, 1, paths)
		last := []string{fmt.Sprintf("src/pkg%d/file%d.go", (paths-1)%5, paths-1)}
		b.Run(fmt.Sprintf("paths=%d/whole", paths), func(b *testing.B) {
			for b.Loop() {
				if ch, err := db.RunChange(c.ID, "run0"); err != nil || ch.Path(last[0]) == nil {
					b.Fatal(err)
				}
			}
		})
		b.Run(fmt.Sprintf("paths=%d/named", paths), func(b *testing.B) {
			for b.Loop() {
				if got, err := db.RunChangeAt(c.ID, "run0", last); err != nil || len(got) != 1 {
					b.Fatal(err)
				}
			}
		})
	}
}
