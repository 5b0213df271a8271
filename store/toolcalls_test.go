package store

import (
	"encoding/json"
	"errors"
	"testing"
	"time"

	"prototyper/events"
)

func TestToolCallRecordIsUpdatedOnlyByItsOwnCallMovingForward(t *testing.T) {
	args := json.RawMessage(`{"path":"a.txt"}`)
	call := func(edit func(*ToolCallRecord)) ToolCallRecord {
		r := ToolCallRecord{ID: "call_0", MessageID: "m1", Name: "write_file", Args: args}
		edit(&r)
		return r
	}
	awaiting := call(func(r *ToolCallRecord) { r.AwaitingApproval = true })
	pending := call(func(r *ToolCallRecord) { r.Pending = true })
	denied := call(func(r *ToolCallRecord) {
		r.Approval = &Approval{Decision: DecisionDeny, By: ByUser}
		r.Output = "denied"
	})
	rejected := call(func(r *ToolCallRecord) { r.Output = "bad arguments" })
	otherMessage := call(func(r *ToolCallRecord) { r.MessageID = "m2"; r.Pending = true })
	otherTool := call(func(r *ToolCallRecord) { r.Name = "read_file"; r.Output = "x" })
	otherMessageDone := call(func(r *ToolCallRecord) { r.MessageID = "m2"; r.Output = "x" })

	for _, tc := range []struct {
		name     string
		first    ToolCallRecord
		complete bool // the first call runs to its result
		then     ToolCallRecord
		refused  bool
	}{
		{"approval allowed, the call runs", awaiting, false, pending, false},
		{"approval denied", awaiting, false, denied, false},
		{"asked again for the same call", awaiting, false, awaiting, false},
		{"an outcome written again (a paused batch closed)", rejected, false, rejected, false},
		{"a finished call's id sent again, same message", pending, true, pending, true},
		{"a finished call's id sent again by a later message", pending, true, otherMessage, true},
		{"a running call's id sent again in the same batch", pending, false, pending, true},
		{"a waiting call's id taken by another message", awaiting, false, otherMessage, true},
		{"an outcome of another tool over a finished call", pending, true, otherTool, true},
		{"an outcome of another message over a rejected call", rejected, false, otherMessageDone, true},
		{"a finished call asked for approval again", pending, true, awaiting, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			db, _ := openTestDB(t, nil)
			c := mustChat(t, db, Chat{})
			tc.first.ChatID, tc.then.ChatID = c.ID, c.ID
			if err := db.PutToolCall(tc.first); err != nil {
				t.Fatal(err)
			}
			if tc.complete {
				if _, err := db.CompleteToolCall(c.ID, "call_0", ToolResult{OK: true, Output: "first result"}); err != nil {
					t.Fatal(err)
				}
			}
			before, _ := db.ToolCall(c.ID, "call_0")
			err := db.PutToolCall(tc.then)
			after, _ := db.ToolCall(c.ID, "call_0")
			recs, _ := db.ToolCalls(c.ID)
			if len(recs) != 1 {
				t.Errorf("%d records, want 1", len(recs))
			}
			if !tc.refused {
				if err != nil {
					t.Fatalf("a legitimate update was refused: %v", err)
				}
				if after.MessageID != tc.then.MessageID || after.Pending != tc.then.Pending || after.Output != tc.then.Output {
					t.Errorf("record = %+v, want the update stored", after)
				}
				return
			}
			var dup *DuplicateToolCallError
			if !errors.Is(err, ErrDuplicateToolCall) || !errors.As(err, &dup) || dup.ID != "call_0" {
				t.Fatalf("err = %v, want ErrDuplicateToolCall for call_0", err)
			}
			a, _ := json.Marshal(before)
			b, _ := json.Marshal(after)
			if string(a) != string(b) {
				t.Errorf("the refused call changed the record:\nbefore %s\nafter  %s", a, b)
			}
		})
	}
}

// Three calls with one id from a server: the first is recorded with its own result, the
// other two are refused and cannot put their result over it.
func TestDuplicateToolCallIDsNeverOverwriteTheFirstResult(t *testing.T) {
	db, _ := openTestDB(t, nil)
	c := mustChat(t, db, Chat{})
	first := ToolCallRecord{ID: "call_0", ChatID: c.ID, MessageID: "m1", Name: "read_file", Args: json.RawMessage(`{"path":"a"}`), Pending: true}
	if err := db.PutToolCall(first); err != nil {
		t.Fatal(err)
	}
	for _, path := range []string{"b", "c"} {
		again := first
		again.Args = json.RawMessage(`{"path":"` + path + `"}`)
		if err := db.PutToolCall(again); !errors.Is(err, ErrDuplicateToolCall) {
			t.Errorf("call for %s: err = %v, want ErrDuplicateToolCall", path, err)
		}
	}
	if _, err := db.CompleteToolCall(c.ID, "call_0", ToolResult{OK: true, Output: "contents of a"}); err != nil {
		t.Fatal(err)
	}
	if _, err := db.CompleteToolCall(c.ID, "call_0", ToolResult{OK: true, Output: "contents of b"}); !errors.Is(err, ErrDuplicateToolCall) {
		t.Errorf("a second result: err = %v, want ErrDuplicateToolCall", err)
	}
	got, _ := db.ToolCall(c.ID, "call_0")
	if got.Output != "contents of a" || string(got.Args) != `{"path":"a"}` {
		t.Errorf("record = %+v, want the first call with its own result", got)
	}
}

func TestARecordStoredBeforeOriginsReadsItsCallWrittenAsTextAsOriginText(t *testing.T) {
	for _, tt := range []struct{ stored, want string }{
		{`{"id":"c1","chatId":"x","name":"echo","pending":false,"ok":true,"recovered":true}`, events.OriginText},
		{`{"id":"c1","chatId":"x","name":"echo","pending":false,"ok":true}`, ""},
		{`{"id":"c1","chatId":"x","name":"echo","pending":false,"ok":true,"recovered":true,"origin":"text"}`, events.OriginText},
	} {
		var r ToolCallRecord
		if err := json.Unmarshal([]byte(tt.stored), &r); err != nil {
			t.Fatal(err)
		}
		if r.Origin != tt.want || r.Name != "echo" || !r.OK {
			t.Fatalf("%s read as %+v, want origin %q", tt.stored, r, tt.want)
		}
	}
}

func TestToolCallIsPendingUntilCompleted(t *testing.T) {
	clock := newTestClock()
	db, _ := openTestDB(t, clock)
	c := mustChat(t, db, Chat{})
	args := json.RawMessage(`{"path":"a.txt"}`)
	waiting := ToolCallRecord{ID: "call_2", ChatID: c.ID, Name: "write_file", Args: args, AwaitingApproval: true}
	running := ToolCallRecord{ID: "call_1", ChatID: c.ID, Name: "read_file", Args: args, Pending: true, StartedAt: clock.Now()}
	for _, r := range []ToolCallRecord{running, waiting} {
		if err := db.PutToolCall(r); err != nil {
			t.Fatal(err)
		}
	}
	clock.Advance(1500 * time.Millisecond)
	done, err := db.CompleteToolCall(c.ID, "call_1", ToolResult{OK: true, Output: "hi", Details: json.RawMessage(`{"bytes":2}`)})
	if err != nil {
		t.Fatal(err)
	}
	if done.Pending || !done.OK || done.Output != "hi" || done.DurationMs != 1500 {
		t.Errorf("completed = %+v", done)
	}
	// The decision on the waiting call, then its execution, replace the same record.
	waiting.AwaitingApproval, waiting.Pending = false, true
	waiting.Approval = &Approval{Decision: DecisionAllow, By: ByUser}
	if err := db.PutToolCall(waiting); err != nil {
		t.Fatal(err)
	}
	recs, err := db.ToolCalls(c.ID)
	if err != nil {
		t.Fatal(err)
	}
	if len(recs) != 2 || recs[0].ID != "call_1" || recs[1].ID != "call_2" {
		t.Fatalf("records = %+v, want call_1 then call_2, once each", recs)
	}
	if !recs[1].Pending || recs[1].Approval == nil || recs[1].Approval.Decision != DecisionAllow {
		t.Errorf("call_2 = %+v", recs[1])
	}
	if string(recs[0].Details) != `{"bytes":2}` {
		t.Errorf("details = %s", recs[0].Details)
	}
	// The user stops the run while call_2 runs: its record says so, read back as stored.
	if _, err := db.CompleteToolCall(c.ID, "call_2", ToolResult{Output: "stopped: by the user", Stopped: true}); err != nil {
		t.Fatal(err)
	}
	if r, err := db.ToolCall(c.ID, "call_2"); err != nil || !r.Stopped || r.OK || r.Pending || recs[0].Stopped {
		t.Errorf("call_2 = %+v, %v; want stopped (and call_1 not)", r, err)
	}
}
