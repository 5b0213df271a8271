package agentloop

import (
	"maps"
	"slices"
	"sync"
	"testing"

	"prototyper/events"
	"prototyper/store"
)

// changeReads is a store that counts the path records of changes an agent decodes.
type changeReads struct {
	*store.DB
	mu    sync.Mutex
	paths int
}

func (s *changeReads) count(cs ...store.Change) {
	s.mu.Lock()
	defer s.mu.Unlock()
	for _, c := range cs {
		s.paths += len(c.Paths)
	}
}

func (s *changeReads) Changes(chatID string) ([]store.Change, error) {
	cs, err := s.DB.Changes(chatID)
	s.count(cs...)
	return cs, err
}

func (s *changeReads) RunChange(chatID, id string) (*store.Change, error) {
	c, err := s.DB.RunChange(chatID, id)
	if c != nil {
		s.count(*c)
	}
	return c, err
}

func (s *changeReads) read() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	n := s.paths
	s.paths = 0
	return n
}

// Undoing and redoing a run over and over reads the same records each time: an undo does not
// read the chat's earlier undos and redos, whose number grows with each, and its event still
// gives every card's state.
func TestAnUndoReadsNoMoreAfterManyUndosAndRedos(t *testing.T) {
	var reads *changeReads
	b := newUndoBench(t, func(c *Config) {
		reads = &changeReads{DB: c.Store.(*store.DB)}
		c.Store = reads
	})
	var calls []store.ToolCall
	for _, p := range []string{"a.txt", "b.txt", "c.txt"} {
		b.write(p, "old\n", 0o644)
		calls = append(calls, writeCall("c-"+p, p, "new\n"))
	}
	b.run(calls...)
	reads.read()
	b.undo(UndoOptions{})
	first := reads.read()
	b.redo()
	for range 5 {
		b.undo(UndoOptions{})
		b.redo()
	}
	reads.read()
	b.undo(UndoOptions{})
	if later := reads.read(); later != first {
		t.Errorf("the undo after five undos and redos read %d path records, the first one %d", later, first)
	}
	b.want("a.txt", "old\n", 0o644)
	undos := ofType(b.rec.events(), events.Undo)
	states := undos[len(undos)-1].ToolStates
	for _, id := range []string{"c-a.txt", "c-b.txt", "c-c.txt"} {
		if states[id] != CardUndone {
			t.Errorf("the undo's event gives call %s the state %q, want %q", id, states[id], CardUndone)
		}
	}
	if keys := slices.Sorted(maps.Keys(states)); len(keys) != 3 {
		t.Errorf("the undo's event gives the states of %v, want the run's three calls", keys)
	}
}
