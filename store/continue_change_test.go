package store

import (
	"testing"

	"prototyper/tools"
)

// A run resumed after an approval continues the change of the run it resumes: the change takes
// the new run's id, keeps its place and its paths, and the new run's calls add to it (keeping
// each path's first pre-image). A change an undo took back, or none, is not continued.
func TestAContinuedChangeTakesTheResumedRunsIDAndKeepsItsPaths(t *testing.T) {
	db, _ := openTestDB(t, nil)
	c, _ := db.CreateChat(Chat{})
	file := func(p, content string) tools.PathState {
		return tools.PathState{Path: p, Kind: tools.KindFile, Mode: 0o644, Size: int64(len(content)),
			Hash: tools.HashContent([]byte(content)), Content: []byte(content)}
	}
	call := func(id, run string, states ...tools.PathState) []string {
		t.Helper()
		got, err := db.StartToolCall(ToolCallRecord{ID: id, ChatID: c.ID, RunID: run, Name: "write_file", Pending: true}, states)
		if err != nil {
			t.Fatal(err)
		}
		return got
	}
	call("c0", "r0", file("z.txt", "before r0"))
	call("c1", "r1", file("a.txt", "before r1"))
	if ok, err := db.ContinueChange(c.ID, "r1", "r2"); err != nil || !ok {
		t.Fatalf("continuing r1's change: %v, %v", ok, err)
	}
	if got := call("c2", "r2", file("a.txt", "written by c1"), file("b.txt", "before r2")); len(got) != 1 || got[0] != "b.txt" {
		t.Fatalf("the resumed run recorded %v, want only b.txt: a.txt keeps r1's pre-image", got)
	}
	changes, _ := db.Changes(c.ID)
	if len(changes) != 2 || changes[0].ID != "r0" || changes[1].ID != "r2" || len(changes[1].Paths) != 2 ||
		changes[1].Paths[0].Before.Hash != tools.HashContent([]byte("before r1")) {
		t.Fatalf("changes %+v, want r0's, then one change of r2 with a.txt as it was before r1 and b.txt", changes)
	}
	if old, _ := db.RunChange(c.ID, "r1"); old != nil {
		t.Errorf("r1 still names a change: %+v", old)
	}

	if ok, _ := db.ContinueChange(c.ID, "r9", "r10"); ok {
		t.Error("a run that changed nothing was continued")
	}
	if err := db.RecordChange(Change{ID: "u1", ChatID: c.ID, Kind: ChangeUndo, Reverts: []string{"r2"}}, nil, []string{"r2"}, nil); err != nil {
		t.Fatal(err)
	}
	if ok, _ := db.ContinueChange(c.ID, "r2", "r3"); ok {
		t.Error("a change an undo took back was continued: its redo would no longer find it")
	}
}
