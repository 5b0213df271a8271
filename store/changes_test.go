package store

import (
	"fmt"
	"maps"
	"slices"
	"testing"

	bolt "go.etcd.io/bbolt"

	"prototyper/store/storetest"
	"prototyper/tools"
)

func TestAPreImageIsKeptOncePerPathPerRunAndEachContentOncePerChat(t *testing.T) {
	db, _ := openTestDB(t, nil)
	c, _ := db.CreateChat(Chat{})
	file, call := fileState, writeCalls(t, db, c.ID)
	if got := call("c1", "r1", file("a.txt", "same"), file("b.txt", "same")); len(got) != 2 {
		t.Fatalf("first call recorded %v", got)
	}
	if got := call("c2", "r1", file("a.txt", "changed by c1")); len(got) != 0 {
		t.Fatalf("a path the run touched already was recorded again: %v", got)
	}
	if got := call("c3", "r2", file("a.txt", "changed by c1")); len(got) != 1 {
		t.Fatalf("another run's first touch was not recorded: %v", got)
	}
	if r, err := db.ToolCall(c.ID, "c1"); err != nil || !r.Pending {
		t.Fatalf("the pending record %+v, %v: committed with the pre-images", r, err)
	}
	changes, _ := db.Changes(c.ID)
	if len(changes) != 2 || len(changes[0].Paths) != 2 || changes[0].Paths[0].Before.Hash != tools.HashContent([]byte("same")) {
		t.Fatalf("changes %+v", changes)
	}
	if got, err := db.Content(c.ID, tools.HashContent([]byte("same"))); err != nil || string(got) != "same" {
		t.Fatalf("content %q, %v", got, err)
	}
	var kept int
	db.view(func(tx *bolt.Tx) error {
		kept = chatBucket(tx, c.ID).Bucket(bucketContents).Stats().KeyN
		return nil
	})
	if kept != 2 {
		t.Errorf("%d contents kept, want 2: the same content once", kept)
	}
	if _, err := db.CompleteToolCall(c.ID, "c1", ToolResult{OK: true, After: []tools.PathState{file("a.txt", "after")}}); err != nil {
		t.Fatal(err)
	}
	changes, _ = db.Changes(c.ID)
	if after := changes[0].Paths[0].After; after == nil || after.Hash != tools.HashContent([]byte("after")) {
		t.Errorf("after %+v, want what the call left recorded with its result", after)
	}
	if err := db.DeleteChat(c.ID); err != nil {
		t.Fatal(err)
	}
}

// A list of changes reads each change's head and the index of its paths: which paths a change
// left other than they were, in the order they were first touched, without their states.
func TestChangeOutlinesNameTheChangedPathsInTheOrderFirstTouched(t *testing.T) {
	db, _ := openTestDB(t, nil)
	c := mustChat(t, db, Chat{})
	file := func(p, content string) tools.PathState {
		return tools.PathState{Path: p, Kind: tools.KindFile, Size: int64(len(content)), Hash: tools.HashContent([]byte(content)), Content: []byte(content)}
	}
	for i, p := range []string{"z.txt", "a.txt", "m.txt"} {
		id := fmt.Sprint("call", i)
		if _, err := db.StartToolCall(ToolCallRecord{ID: id, ChatID: c.ID, RunID: "r1", Name: "write_file", Pending: true}, []tools.PathState{file(p, "before")}); err != nil {
			t.Fatal(err)
		}
		after := file(p, "after")
		if p == "a.txt" {
			after = file(p, "before") // put back as it was: not a change
		}
		if _, err := db.CompleteToolCall(c.ID, id, ToolResult{OK: true, After: []tools.PathState{after}}); err != nil {
			t.Fatal(err)
		}
	}
	if err := db.RecordChange(Change{ID: "u1", ChatID: c.ID, Kind: ChangeUndo, Reverts: []string{"r1"},
		Paths: []PathChange{{Path: "z.txt", Workspace: "/one", Before: file("z.txt", "after"), After: &tools.PathState{Path: "z.txt", Kind: tools.KindAbsent}}}}, nil, []string{"r1"}, nil); err != nil {
		t.Fatal(err)
	}
	got, err := db.ChangeOutlines(c.ID)
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != 2 || got[0].ID != "r1" || got[0].RevertedBy != "u1" || got[0].Touched != 3 ||
		!slices.Equal(got[0].Changed, []string{"z.txt", "m.txt"}) || got[1].Kind != ChangeUndo || !slices.Equal(got[1].Changed, []string{"z.txt"}) {
		t.Fatalf("outlines %+v", got)
	}
	whole, _ := db.Changes(c.ID)
	if len(whole) != 2 || len(whole[0].Paths) != 3 || whole[0].Paths[1].Path != "a.txt" || !whole[0].Paths[1].Unchanged() || whole[0].RevertedBy != "u1" {
		t.Fatalf("changes %+v", whole)
	}
}

// A file written before each change's paths were kept apart opens with every change as it
// was: its paths, their states and what they were left as.
func TestChangesOfAFileOfSchemaOneReadTheSameOnceMigrated(t *testing.T) {
	db, path := openTestDB(t, nil)
	c := mustChat(t, db, Chat{})
	old := Change{ID: "r1", ChatID: c.ID, Kind: ChangeRun, RevertedBy: "u1", Paths: []PathChange{
		{Path: "b.txt", CallID: "c1", Before: tools.PathState{Path: "b.txt", Kind: tools.KindAbsent}, After: &tools.PathState{Path: "b.txt", Kind: tools.KindFile, Hash: "h"}},
		{Path: "a.txt", Before: tools.PathState{Path: "a.txt", Kind: tools.KindDir}, After: &tools.PathState{Path: "a.txt", Kind: tools.KindDir}},
	}}
	if err := db.update("an old change", func(tx *bolt.Tx) error {
		cb := chatBucket(tx, c.ID)
		changes, _ := cb.CreateBucketIfNotExists(bucketChanges)
		index, _ := cb.CreateBucketIfNotExists(bucketChangeIndex)
		seq, _ := changes.NextSequence()
		if err := index.Put([]byte(old.ID), seqKey(seq)); err != nil {
			return err
		}
		return putJSON(changes, seqKey(seq), old)
	}); err != nil {
		t.Fatal(err)
	}
	db.Close()
	storetest.SetSchema(t, path, 1)
	db = reopen(t, path, Options{})
	got, err := db.Changes(c.ID)
	if err != nil || len(got) != 1 {
		t.Fatalf("changes %+v, %v", got, err)
	}
	if g := got[0]; g.ID != "r1" || g.RevertedBy != "u1" || len(g.Paths) != 2 || g.Paths[0].Path != "b.txt" || g.Paths[0].CallID != "c1" ||
		g.Paths[0].After == nil || g.Paths[0].After.Hash != "h" || !g.Paths[1].Unchanged() {
		t.Fatalf("migrated change %+v", g)
	}
	if o, _ := db.ChangeOutlines(c.ID); len(o) != 1 || !slices.Equal(o[0].Changed, []string{"b.txt"}) {
		t.Fatalf("outlines %+v", o)
	}
	if r, err := db.RunChange(c.ID, "r1"); err != nil || r == nil || len(r.Paths) != 2 {
		t.Fatalf("run change %+v, %v", r, err)
	}
}

// What a list of changes and an undo of the last run read is by what they ask: neither decodes
// the paths' states of another change (here, one that could not be decoded at all).
func TestOutlinesAndTheLastRunAreReadWithoutDecodingOtherChangesPaths(t *testing.T) {
	db, _ := openTestDB(t, nil)
	c := mustChat(t, db, Chat{})
	for _, run := range []string{"r1", "r2"} {
		s := tools.PathState{Path: run + ".txt", Kind: tools.KindAbsent}
		if _, err := db.StartToolCall(ToolCallRecord{ID: "call-" + run, ChatID: c.ID, RunID: run, Name: "write_file", Pending: true}, []tools.PathState{s}); err != nil {
			t.Fatal(err)
		}
	}
	if err := db.update("spoil the first run's path", func(tx *bolt.Tx) error {
		paths := chatBucket(tx, c.ID).Bucket(bucketChangePaths)
		return paths.Put(pathRecordKey(seqKey(1), 0), []byte("{not json"))
	}); err != nil {
		t.Fatal(err)
	}
	if _, err := db.Changes(c.ID); err == nil {
		t.Fatal("the spoilt record was never decoded: the test proves nothing")
	}
	if o, err := db.ChangeOutlines(c.ID); err != nil || len(o) != 2 || !slices.Equal(o[0].Changed, []string{"r1.txt"}) {
		t.Fatalf("outlines %+v, %v", o, err)
	}
	if h, err := db.ChangeHeads(c.ID); err != nil || len(h) != 2 || h[1].ID != "r2" || h[1].Left != 1 || h[1].Changed != nil {
		t.Fatalf("heads %+v, %v", h, err)
	}
	if r, err := db.RunChange(c.ID, "r2"); err != nil || len(r.Paths) != 1 || r.Paths[0].Path != "r2.txt" {
		t.Fatalf("the last run %+v, %v", r, err)
	}
}

// A run's outline tells, from the index alone, the paths it created and those it deleted; the
// others it edited. A path deleted and written again by a later call of the run was edited,
// one created and deleted again was not changed at all.
func TestChangeOutlinesTellCreatedAndDeletedPathsWithoutDecodingThem(t *testing.T) {
	db, _ := openTestDB(t, nil)
	c := mustChat(t, db, Chat{})
	file := func(p, content string) tools.PathState {
		return tools.PathState{Path: p, Kind: tools.KindFile, Size: int64(len(content)), Hash: tools.HashContent([]byte(content)), Content: []byte(content)}
	}
	absent := func(p string) tools.PathState { return tools.PathState{Path: p, Kind: tools.KindAbsent} }
	calls := []struct{ before, after tools.PathState }{
		{absent("new.txt"), file("new.txt", "made")},
		{file("b.txt", "was"), file("b.txt", "is")},
		{file("old.txt", "was"), absent("old.txt")},
		{file("back.txt", "was"), absent("back.txt")},
		{absent("back.txt"), file("back.txt", "again")}, // the run's later call: its first pre-image holds
		{absent("tmp.txt"), file("tmp.txt", "x")},
		{file("tmp.txt", "x"), absent("tmp.txt")},
	}
	for i, call := range calls {
		id := fmt.Sprint("call", i)
		if _, err := db.StartToolCall(ToolCallRecord{ID: id, ChatID: c.ID, RunID: "r1", Name: "tool", Pending: true}, []tools.PathState{call.before}); err != nil {
			t.Fatal(err)
		}
		if _, err := db.CompleteToolCall(c.ID, id, ToolResult{OK: true, After: []tools.PathState{call.after}}); err != nil {
			t.Fatal(err)
		}
	}
	whole, err := db.RunChange(c.ID, "r1")
	if err != nil {
		t.Fatal(err)
	}
	effects := map[string]string{}
	for i := range whole.Paths {
		effects[whole.Paths[i].Path] = whole.Paths[i].Effect()
	}
	want := map[string]string{"new.txt": PathCreated, "b.txt": PathEdited, "old.txt": PathDeleted, "back.txt": PathEdited, "tmp.txt": PathUnchanged}
	if !maps.Equal(effects, want) {
		t.Errorf("effects %v, want %v", effects, want)
	}
	if err := db.update("spoil every path record", func(tx *bolt.Tx) error {
		paths := chatBucket(tx, c.ID).Bucket(bucketChangePaths)
		for ord := range whole.Paths {
			if err := paths.Put(pathRecordKey(seqKey(1), ord), []byte("{not json")); err != nil {
				return err
			}
		}
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	o, err := db.ChangeOutlines(c.ID)
	if err != nil || len(o) != 1 {
		t.Fatalf("outlines %+v, %v", o, err)
	}
	if !slices.Equal(o[0].Changed, []string{"new.txt", "b.txt", "old.txt", "back.txt"}) ||
		!slices.Equal(o[0].Created, []string{"new.txt"}) || !slices.Equal(o[0].Deleted, []string{"old.txt"}) {
		t.Errorf("outline changed %v, created %v, deleted %v; want new.txt created and old.txt deleted of four", o[0].Changed, o[0].Created, o[0].Deleted)
	}
}

// What a call's checkpoint asks after every call, the records of a few paths of its run's
// change, is read from those records alone: a spoilt record of another path is never decoded.
func TestTheRecordsOfNamedPathsOfARunsChangeAreReadWithoutTheOthers(t *testing.T) {
	db, _ := openTestDB(t, nil)
	c := mustChat(t, db, Chat{})
	for i, p := range []string{"a.txt", "dir/b.txt", "c.txt"} {
		s := tools.PathState{Path: p, Kind: tools.KindAbsent}
		if _, err := db.StartToolCall(ToolCallRecord{ID: fmt.Sprint("call", i), ChatID: c.ID, RunID: "r1", Name: "write_file", Pending: true}, []tools.PathState{s}); err != nil {
			t.Fatal(err)
		}
	}
	if err := db.update("spoil the first path's record", func(tx *bolt.Tx) error {
		return chatBucket(tx, c.ID).Bucket(bucketChangePaths).Put(pathRecordKey(seqKey(1), 0), []byte("{not json"))
	}); err != nil {
		t.Fatal(err)
	}
	got, err := db.RunChangeAt(c.ID, "r1", []string{"c.txt", "nowhere.txt", "dir/b.txt", "c.txt", "b.txt"})
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, pc := range got {
		names = append(names, pc.Path)
	}
	if !slices.Equal(names, []string{"c.txt", "dir/b.txt"}) || got[0].Before.Kind != tools.KindAbsent {
		t.Fatalf("records %+v, want c.txt and dir/b.txt once each, in the order asked", got)
	}
	if _, err := db.RunChangeAt(c.ID, "r1", []string{"a.txt"}); err == nil {
		t.Fatal("the spoilt record was never decoded when asked for: the test proves nothing")
	}
	if got, err := db.RunChangeAt(c.ID, "no-such-run", []string{"c.txt"}); err != nil || got != nil {
		t.Fatalf("a run that changed nothing: %+v, %v", got, err)
	}
}

// A run resumed after an approval continues the change of the run it resumes: the change takes
// the new run's id, keeps its place and its paths, and the new run's calls add to it (keeping
// each path's first pre-image). A change an undo took back, or none, is not continued.
func TestAContinuedChangeTakesTheResumedRunsIDAndKeepsItsPaths(t *testing.T) {
	db, _ := openTestDB(t, nil)
	c, _ := db.CreateChat(Chat{})
	file, call := fileState, writeCalls(t, db, c.ID)
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

// fileState is a regular file at p holding content, as a call's pre-image records it.
func fileState(p, content string) tools.PathState {
	return tools.PathState{Path: p, Kind: tools.KindFile, Mode: 0o644, Size: int64(len(content)),
		Hash: tools.HashContent([]byte(content)), Content: []byte(content)}
}

// writeCalls starts pending write_file calls in chat chatID with the pre-images given; each
// returns the paths the store recorded a pre-image for.
func writeCalls(t *testing.T, db *DB, chatID string) func(id, run string, states ...tools.PathState) []string {
	return func(id, run string, states ...tools.PathState) []string {
		t.Helper()
		got, err := db.StartToolCall(ToolCallRecord{ID: id, ChatID: chatID, RunID: run, Name: "write_file", Pending: true}, states)
		if err != nil {
			t.Fatal(err)
		}
		return got
	}
}
