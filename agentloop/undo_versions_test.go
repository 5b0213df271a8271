package agentloop

import (
	"errors"
	"testing"
)

// editAndResend edits the chat's first message and waits for the run it starts: the version
// shown from then on has run calls, the earlier one stays behind.
func (b *undoBench) editAndResend(runsBefore int) {
	b.t.Helper()
	b.mu.Lock()
	b.calls = nil
	b.mu.Unlock()
	msgs, err := b.db.Messages(b.chat)
	if err != nil || len(msgs) == 0 {
		b.t.Fatalf("messages = %v, %v", msgs, err)
	}
	if err := b.a.EditAndResend(b.t.Context(), b.chat, msgs[0].ID, "go again"); err != nil {
		b.t.Fatal(err)
	}
	b.rec.waitFor(b.t, "the edited message's run to end", finished(runsBefore+1))
}

// showFirstVersion shows the chat's first version again.
func (b *undoBench) showFirstVersion() {
	b.t.Helper()
	msgs, err := b.db.Messages(b.chat)
	if err != nil || len(msgs) == 0 {
		b.t.Fatalf("messages = %v, %v", msgs, err)
	}
	if err := b.a.ShowVersion(b.chat, msgs[0].ID, 1); err != nil {
		b.t.Fatal(err)
	}
}

func (b *undoBench) summary(id string) ChangeSummary {
	b.t.Helper()
	all, err := b.a.ChangeSummaries(b.chat)
	if err != nil {
		b.t.Fatal(err)
	}
	for _, c := range all {
		if c.ID == id {
			return c
		}
	}
	b.t.Fatalf("no change %s among %+v", id, all)
	return ChangeSummary{}
}

func TestRedoLeavesAnUndoOfAnEarlierVersionUntilThatVersionIsShownAgain(t *testing.T) {
	b := newUndoBench(t, nil)
	b.run(writeCall("c1", "index.html", "<h1>hi</h1>\n"))
	undo := b.undo(UndoOptions{})
	b.want("index.html", "", 0)
	b.editAndResend(1)

	if res, err := b.a.Redo(t.Context(), b.chat, UndoOptions{}); !errors.Is(err, ErrNothingToRedo) {
		t.Fatalf("redo after the edit = %+v, %v; want it refused: the undo is of the version not shown", res, err)
	}
	b.want("index.html", "", 0)
	if s := b.summary(undo.ChangeID); !s.OtherVersion {
		t.Errorf("the undo of the earlier version is summarized as %+v, want it marked of another version so that no Redo is offered", s)
	}

	b.showFirstVersion()
	if s := b.summary(undo.ChangeID); s.OtherVersion {
		t.Errorf("with its version shown again the undo is summarized as %+v, want it redoable", s)
	}
	b.redo()
	b.want("index.html", "<h1>hi</h1>\n", 0o644)
}

func TestRedoOfAnEarlierVersionShownAgainRefusesWhenItsFileChangedMeanwhile(t *testing.T) {
	b := newUndoBench(t, nil)
	b.run(writeCall("c1", "index.html", "<h1>hi</h1>\n"))
	b.undo(UndoOptions{})
	b.editAndResend(1)
	b.write("index.html", "mine\n", 0o644)
	b.showFirstVersion()

	_, err := b.a.Redo(t.Context(), b.chat, UndoOptions{})
	var conflict *ConflictError
	if !errors.As(err, &conflict) {
		t.Fatalf("redo = %v, want it refused as a conflict: index.html changed since the undo", err)
	}
	b.want("index.html", "mine\n", 0o644)
}

func TestUndoLeavesTheRunsOfAnEarlierVersionAlone(t *testing.T) {
	b := newUndoBench(t, nil)
	first := b.run(writeCall("c1", "index.html", "<h1>hi</h1>\n"))
	b.editAndResend(1)

	if res, err := b.a.Undo(t.Context(), b.chat, UndoOptions{}); !errors.Is(err, ErrNothingToUndo) {
		t.Fatalf("undo after the edit = %+v, %v; want it refused: the run that wrote index.html is of the version not shown", res, err)
	}
	if _, err := b.a.Undo(t.Context(), b.chat, UndoOptions{RunID: first.RunID}); !errors.Is(err, ErrNothingToUndo) {
		t.Fatalf("undo of the earlier version's run = %v, want it refused", err)
	}
	b.want("index.html", "<h1>hi</h1>\n", 0o644)
	if s := b.summary(first.RunID); !s.OtherVersion {
		t.Errorf("the earlier version's run is summarized as %+v, want it marked of another version", s)
	}

	b.showFirstVersion()
	b.undo(UndoOptions{})
	b.want("index.html", "", 0)
}

// A Revert all takes back the runs of every version (the review lists their files): its undo
// is the shown version's, redoable there, and its redo puts back both files.
func TestARevertAllOfRunsOfTwoVersionsIsRedoneInTheVersionShown(t *testing.T) {
	b := newUndoBench(t, nil)
	b.run(writeCall("c1", "a.txt", "A\n"))
	b.editAndResend(1)
	b.run(writeCall("c2", "b.txt", "B\n"))
	res := b.undo(UndoOptions{All: true})
	b.want("a.txt", "", 0)
	b.want("b.txt", "", 0)
	if s := b.summary(res.ChangeID); s.OtherVersion {
		t.Fatalf("the Revert all is marked of a version not shown: %+v; no version would offer its redo", s)
	}
	if _, err := b.a.Redo(t.Context(), b.chat, UndoOptions{}); err != nil {
		t.Fatalf("redo of the Revert all just made in the version shown: %v", err)
	}
	b.want("a.txt", "A\n", 0o644)
	b.want("b.txt", "B\n", 0o644)
}
