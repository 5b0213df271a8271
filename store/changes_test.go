package store

import (
	"testing"

	bolt "go.etcd.io/bbolt"

	"prototyper/tools"
)

func TestAPreImageIsKeptOncePerPathPerRunAndEachContentOncePerChat(t *testing.T) {
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
