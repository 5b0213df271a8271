package store

import "testing"

func TestAWorkspaceTrustIsKeptAcrossARestartAndAllowsOnlyItsOwnBytes(t *testing.T) {
	db, path := openTestDB(t, nil)
	if tr, err := db.WorkspaceTrust("/w"); err != nil || tr.AllowsHash("") || tr.Hash != "" {
		t.Fatalf("a new store's answer = %+v, %v; want none", tr, err)
	}
	if err := db.SetWorkspaceTrust("/w", WorkspaceTrust{Hash: "abc", Allowed: true}); err != nil {
		t.Fatal(err)
	}
	if err := db.Close(); err != nil {
		t.Fatal(err)
	}
	db, err := Open(path, Options{ReadOnly: true})
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	tr, err := db.WorkspaceTrust("/w")
	if err != nil || !tr.AllowsHash("abc") || tr.AllowsHash("abd") || tr.At.IsZero() {
		t.Errorf("after a restart the answer = %+v, %v; want abc allowed, nothing else", tr, err)
	}
	if other, _ := db.WorkspaceTrust("/w2"); other.AllowsHash("abc") {
		t.Error("another workspace shares the answer")
	}
}
