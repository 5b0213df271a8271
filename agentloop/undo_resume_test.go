package agentloop

import (
	"testing"

	"prototyper/events"
	"prototyper/model"
	"prototyper/store"
	"prototyper/tools"
)

// A run that waits for the user's approval part-way resumes as a run of its own; what both
// parts changed is one change, taken back by one undo and brought back by one redo.
func TestOneUndoTakesBackARunThatWaitedForAnApprovalPartWay(t *testing.T) {
	b := pausingBench(t, writeCall("c2", "b.txt", "new b\n"), writeCall("c3", "c.txt", "new c\n"))
	b.write("a.txt", "one\n", 0o644)
	b.write("b.txt", "old b\n", 0o600)
	out := b.run()
	if out.StopReason != events.StopAwaitingApproval {
		t.Fatalf("stop %s, want the run waiting for the approval of the writes", out.StopReason)
	}
	b.want("a.txt", "two\n", 0o644)
	for _, id := range []string{"c2", "c3"} {
		if err := b.a.Decide(id, DecisionAllow, ""); err != nil {
			t.Fatal(err)
		}
	}
	evs := b.rec.waitFor(t, "the approved run finished", finished(2))
	b.want("b.txt", "new b\n", 0o600)
	b.want("c.txt", "new c\n", 0o644)

	started := ofType(evs, events.RunStarted)
	if len(started) != 2 || started[1].ChangeID != out.RunID {
		t.Fatalf("the resumed run started with %s, want it to continue the change of %s", summary(started), out.RunID)
	}
	resumed := started[1].RunID
	heads, err := b.db.ChangeHeads(b.chat)
	if err != nil {
		t.Fatal(err)
	}
	if len(heads) != 1 || heads[0].ID != resumed || heads[0].Left != 3 {
		t.Fatalf("the chat's changes %+v, want one change of run %s with its three files", heads, resumed)
	}

	res := b.undo(UndoOptions{})
	if len(res.Reverts) != 1 || res.Reverts[0] != resumed || len(res.Paths) != 3 {
		t.Fatalf("one undo took back %v, put back %v; want the whole run", res.Reverts, res.Paths)
	}
	b.want("a.txt", "one\n", 0o644)
	b.want("b.txt", "old b\n", 0o600)
	b.want("c.txt", "", 0)
	if _, err := b.a.Undo(t.Context(), b.chat, UndoOptions{}); err == nil {
		t.Fatal("a second undo found something left to take back")
	}

	b.redo()
	b.want("a.txt", "two\n", 0o644)
	b.want("b.txt", "new b\n", 0o600)
	b.want("c.txt", "new c\n", 0o644)
}

// An undo while the run waits takes back what it changed so far; the resumed part then
// starts a change of its own, and the undo can still be redone.
func TestARunUndoneWhileItWaitsResumesWithAChangeOfItsOwn(t *testing.T) {
	b := pausingBench(t, writeCall("c2", "b.txt", "new b\n"))
	b.write("a.txt", "one\n", 0o644)
	if out := b.run(); out.StopReason != events.StopAwaitingApproval {
		t.Fatalf("stop %s", out.StopReason)
	}
	b.undo(UndoOptions{})
	b.want("a.txt", "one\n", 0o644)
	if err := b.a.Decide("c2", DecisionAllow, ""); err != nil {
		t.Fatal(err)
	}
	evs := b.rec.waitFor(t, "the approved run finished", finished(2))
	if started := ofType(evs, events.RunStarted); started[len(started)-1].ChangeID != "" {
		t.Fatalf("the resumed run continued %s, a change an undo took back", started[len(started)-1].ChangeID)
	}
	b.want("b.txt", "new b\n", 0o644)
	b.undo(UndoOptions{})
	b.want("b.txt", "", 0)
	b.redo()
	b.want("b.txt", "new b\n", 0o644)
	b.undo(UndoOptions{})
	b.redo()
	b.want("b.txt", "new b\n", 0o644)
}

// roleMessages are the messages of req with role.
func roleMessages(req model.Request, role string) []store.Message {
	var out []store.Message
	for _, m := range req.Messages {
		if m.Role == role {
			out = append(out, m)
		}
	}
	return out
}

// pausingBench is an undoBench whose model edits a.txt (allowed without asking), then writes
// the files of second (asked: the run waits for an approval there), then answers.
func pausingBench(t *testing.T, second ...store.ToolCall) *undoBench {
	b := &undoBench{t: t, dir: t.TempDir()}
	m := &fakeModel{turn: func(req model.Request) model.Turn {
		switch len(roleMessages(req, store.RoleTool)) {
		case 0:
			return toolTurn(tc("c1", "edit_file", `{"path":"a.txt","old_string":"one","new_string":"two"}`))
		case 1:
			return toolTurn(second...)
		}
		return answer("done")
	}}
	b.a, b.db, b.rec = fakeHarness(t, m, func(c *Config) {
		c.Tools = WorkspaceTools(tools.WorkspaceOptions{})
		c.Workspace = b.dir
		c.Approve = ""
	})
	if _, err := b.db.UpdateSettings(func(s *store.Settings) error {
		s.ToolApproval = map[string]string{"edit_file": ApproveAuto, "write_file": ApproveAsk}
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	return b
}
