package agentloop

import (
	"fmt"
	"slices"
	"testing"

	"prototyper/store"
	"prototyper/tools"
)

// pathRecords is a run's records for n paths: the first third created, the second deleted,
// the last left as they were (a command stopped before it applied them).
func pathRecords(n int) ([]string, []store.PathChange) {
	paths := make([]string, n)
	recs := make([]store.PathChange, n)
	file := tools.PathState{Kind: tools.KindFile, Hash: "h", Size: 1}
	absent := tools.PathState{Kind: tools.KindAbsent}
	for i := range paths {
		paths[i] = fmt.Sprintf("many/%d", i)
		before, after := absent, file
		switch i % 3 {
		case 1:
			before, after = file, absent
		case 2:
			before, after = file, file
		}
		recs[i] = store.PathChange{Path: paths[i], Before: before, After: &after}
	}
	return paths, recs
}

// A call's result names each of its paths once, in its order, under what the run leaves
// there, whatever the number of paths; a path named twice by the call is named once.
func TestACallsResultNamesEachPathOnceUnderWhatTheRunLeavesThere(t *testing.T) {
	paths, recs := pathRecords(6)
	left := leftOf(append(paths, paths[0], paths[2], "never/recorded"), recs)
	want := pathsLeft{
		changed:   []string{"many/0", "many/1", "many/3", "many/4"},
		created:   []string{"many/0", "many/3"},
		deleted:   []string{"many/1", "many/4"},
		unchanged: []string{"many/2", "many/5"},
	}
	for _, c := range []struct {
		name      string
		got, want []string
	}{{"changed", left.changed, want.changed}, {"created", left.created, want.created},
		{"deleted", left.deleted, want.deleted}, {"unchanged", left.unchanged, want.unchanged}} {
		if !slices.Equal(c.got, c.want) {
			t.Errorf("%s: %v, want %v", c.name, c.got, c.want)
		}
	}
}

// BenchmarkACallsResultNamesItsPaths sorts the paths of one call by what the run leaves at
// them, at 1,000, 10,000 and 30,000 paths (a command's change set): it grows with the paths,
// and a stopped command's card waits for it.
func BenchmarkACallsResultNamesItsPaths(b *testing.B) {
	for _, n := range []int{1000, 10000, 30000} {
		paths, recs := pathRecords(n)
		b.Run(fmt.Sprintf("paths=%d", n), func(b *testing.B) {
			for b.Loop() {
				if left := leftOf(paths, recs); len(left.changed)+len(left.unchanged) != n {
					b.Fatalf("named %d of %d paths", len(left.changed)+len(left.unchanged), n)
				}
			}
		})
	}
}
