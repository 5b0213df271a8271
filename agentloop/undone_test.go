package agentloop

import (
	"testing"

	"prototyper/events"
)

// opened opens the chat as the window does and gives its cards' states and its runs' lines.
func (b *undoBench) opened() OpenedChat {
	b.t.Helper()
	o, err := b.a.Open(b.chat)
	if err != nil {
		b.t.Fatal(err)
	}
	return o
}

// lastReverted is the newest undo or redo event the chat sent.
func (b *undoBench) lastReverted() events.Event {
	b.t.Helper()
	evs := b.rec.events()
	for i := len(evs) - 1; i >= 0; i-- {
		if evs[i].Type == events.Undo || evs[i].Type == events.Redo {
			return evs[i]
		}
	}
	b.t.Fatal("no undo or redo event")
	return events.Event{}
}

func wantStates(t *testing.T, what string, got map[string]string, want map[string]string) {
	t.Helper()
	for id, w := range want {
		if got[id] != w {
			t.Errorf("%s: card %s is %q, want %q (all: %v)", what, id, got[id], w, got)
		}
	}
}

func TestAnUndoneRunsCardsReadUndoneAndItsAnswerSaysSoUntilARedo(t *testing.T) {
	b := newUndoBench(t, nil)
	first := b.run(writeCall("w1", "a.txt", "one"))
	second := b.run(writeCall("w2", "b.txt", "two"), tc("r2", "read_file", `{"path":"a.txt"}`))
	b.undo(UndoOptions{})

	o := b.opened()
	wantStates(t, "after undo", o.ToolStates, map[string]string{"w1": CardCompleted, "w2": CardUndone, "r2": CardCompleted})
	if line := o.UndoneRuns[second.RunID]; line != "The changes made here were undone: b.txt." {
		t.Errorf("the undone run's line is %q", line)
	}
	if _, ok := o.UndoneRuns[first.RunID]; ok {
		t.Errorf("the run that stands has a line: %v", o.UndoneRuns)
	}
	ev := b.lastReverted()
	wantStates(t, "the undo event", ev.ToolStates, map[string]string{"w1": CardCompleted, "w2": CardUndone})
	if ev.UndoneRuns[second.RunID] == "" {
		t.Errorf("the undo event names no undone run: %v", ev.UndoneRuns)
	}

	b.redo()
	o = b.opened()
	wantStates(t, "after redo", o.ToolStates, map[string]string{"w1": CardCompleted, "w2": CardCompleted})
	if len(o.UndoneRuns) != 0 {
		t.Errorf("after the redo runs still read undone: %v", o.UndoneRuns)
	}
	ev = b.lastReverted()
	wantStates(t, "the redo event", ev.ToolStates, map[string]string{"w2": CardCompleted})
	if len(ev.UndoneRuns) != 0 {
		t.Errorf("the redo event still names undone runs: %v", ev.UndoneRuns)
	}
}

// A run that wrote a file twice undoes both calls: the second call is no path's first.
func TestRestoreToHereMarksEveryCallOfTheRunsItTookBack(t *testing.T) {
	b := newUndoBench(t, nil)
	first := b.run(writeCall("w1", "a.txt", "one"), writeCall("w1b", "a.txt", "one, again"))
	second := b.run(writeCall("w2", "b.txt", "two"))
	b.undo(UndoOptions{FromRun: first.RunID})

	o := b.opened()
	wantStates(t, "after restore", o.ToolStates, map[string]string{"w1": CardUndone, "w1b": CardUndone, "w2": CardUndone})
	for _, run := range []string{first.RunID, second.RunID} {
		if o.UndoneRuns[run] == "" {
			t.Errorf("run %s has no undone line: %v", run, o.UndoneRuns)
		}
	}
}

func TestARevertedFileMarksOnlyTheCallsThatChangedItAndALaterWriteStands(t *testing.T) {
	b := newUndoBench(t, nil)
	first := b.run(writeCall("wa", "a.txt", "one"), writeCall("wb", "b.txt", "two"))
	b.undo(UndoOptions{Path: "a.txt"})

	o := b.opened()
	wantStates(t, "after revert", o.ToolStates, map[string]string{"wa": CardUndone, "wb": CardCompleted})
	if line := o.UndoneRuns[first.RunID]; line != "Some changes made here were undone: a.txt." {
		t.Errorf("the run's line is %q", line)
	}

	later := b.run(writeCall("wa2", "a.txt", "three"))
	o = b.opened()
	wantStates(t, "after a later write", o.ToolStates, map[string]string{"wa": CardUndone, "wa2": CardCompleted})
	if _, ok := o.UndoneRuns[later.RunID]; ok {
		t.Errorf("the later run reads undone: %v", o.UndoneRuns)
	}
}

func TestAFailedCallIsNotUndone(t *testing.T) {
	b := newUndoBench(t, nil)
	b.run(writeCall("w1", "a.txt", "one"), tc("e1", "edit_file", `{"path":"a.txt","old_string":"absent","new_string":"x"}`))
	b.undo(UndoOptions{})
	o := b.opened()
	wantStates(t, "after undo", o.ToolStates, map[string]string{"w1": CardUndone, "e1": CardFailed})
}
