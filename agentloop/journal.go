package agentloop

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	iofs "io/fs"
	"os"
	"sync"

	"prototyper/events"
	"prototyper/store"
	"prototyper/tools"
)

// An undo or a redo is complete or does nothing. Before its first write it commits a journal
// of every path it writes, from what was there to what goes there ([store.DB.BeginRevert]);
// it is recorded done in the commit that removes the journal. A write that fails takes back
// the writes made before it. A journal found later is an undo or redo the process died in:
// the app's start and the chat's next undo, redo or run settle it first — finish it, or take
// back what it wrote when it cannot be finished — and remove the temporary files its writes
// left. Asked again, the same undo (or redo) reports the one it finished rather than doing
// another.

// revertRequest is what an undo or a redo was asked, as its journal keeps it. Force and
// Keep are how, not what: asked again with others, it is still the same request.
type revertRequest struct {
	Redo        bool   `json:"redo,omitempty"`
	RunID       string `json:"runId,omitempty"`
	FromMessage string `json:"fromMessage,omitempty"`
	FromRun     string `json:"fromRun,omitempty"`
	Path        string `json:"path,omitempty"`
	Workspace   string `json:"workspace,omitempty"`
}

func requestOf(redo bool, o UndoOptions) json.RawMessage {
	b, _ := json.Marshal(revertRequest{Redo: redo, RunID: o.RunID, FromMessage: o.FromMessage, FromRun: o.FromRun,
		Path: o.Path, Workspace: o.Workspace})
	return b
}

// FinishInterrupted settles every undo and redo the app died in (see above): what the app
// does when it starts. A chat running meanwhile is left for its next undo or redo.
func (a *Agent) FinishInterrupted(ctx context.Context) error {
	js, err := a.cfg.Store.Reverts("")
	if err != nil {
		return err
	}
	var errs []error
	for _, j := range js {
		cs := a.chat(j.Change.ChatID)
		cs.mu.Lock()
		if cs.done == nil {
			_, _, err = a.settleInterrupted(ctx, j.Change.ChatID, nil)
			errs = append(errs, err)
		}
		cs.mu.Unlock()
	}
	return errors.Join(errs...)
}

// settleInterrupted settles the chat's interrupted undos and redos; done reports that one of
// them was the request req, now finished, with res its result. The caller holds the chat.
func (a *Agent) settleInterrupted(ctx context.Context, chatID string, req json.RawMessage) (res UndoResult, done bool, err error) {
	js, err := a.cfg.Store.Reverts(chatID)
	if err != nil {
		return res, false, err
	}
	for _, j := range js {
		fs := a.openFolders()
		finished, err := a.settle(ctx, fs, j, true)
		fs.close()
		if err != nil {
			return UndoResult{}, false, err
		}
		if !finished {
			continue
		}
		var r UndoResult
		_ = json.Unmarshal(j.Result, &r)
		a.emitReverted(chatID, j.Change.Kind == store.ChangeRedo, r, func() ([]store.ToolCallRecord, error) { return a.cfg.Store.ToolCalls(chatID) })
		if req != nil && bytes.Equal(j.Request, req) {
			res, done = r, true
		}
	}
	return res, done, nil
}

// settle finishes the journaled undo or redo j (when forward is set and it can be finished)
// or takes back what it wrote, and removes the temporary files its writes left; finished
// reports which. A path found neither as j found it nor as j leaves it (nor missing, as a
// path is while it is replaced) was changed by someone else since: j is then taken back,
// and that path left as it is. The journal stays when even taking back fails: the next
// attempt tries again.
func (a *Agent) settle(ctx context.Context, fs *folders, j store.RevertJournal, forward bool) (finished bool, err error) {
	ctx = context.WithoutCancel(ctx) // half-written files are not left because a window closed
	chatID := j.Change.ChatID
	settings, err := a.cfg.Store.Settings()
	if err != nil {
		return false, err
	}
	limit := settings.CheckpointLimit()
	paths := make([]loc, len(j.Writes))
	changedSince := map[loc]bool{}
	var there []loc // the paths in folders that still exist
	for i, w := range j.Writes {
		paths[i] = loc{w.Workspace, w.Path}
		limit = max(limit, w.Before.Size, w.After.Size)
		if _, err := os.Stat(w.Workspace); errors.Is(err, iofs.ErrNotExist) {
			changedSince[paths[i]] = true // its folder went since: nothing to finish or take back there
		} else {
			there = append(there, paths[i])
		}
	}
	now, err := fs.states(ctx, there, func(loc) int64 { return limit })
	if err != nil {
		return false, err
	}
	for i, w := range j.Writes {
		is, ok := now[paths[i]]
		if ok && is.Kind != tools.KindAbsent && !a.underWay(chatID, w, is) {
			changedSince[paths[i]] = true
		}
	}
	leftovers := func() error {
		var errs []error
		for i, w := range j.Writes {
			if _, ok := now[paths[i]]; !ok {
				continue // its folder went
			}
			if ws, err := fs.get(w.Workspace); err == nil {
				errs = append(errs, ws.RemoveLeftovers(ctx, []string{paths[i].path}))
			}
		}
		return errors.Join(errs...)
	}
	var forwardErr error
	if forward && len(changedSince) == 0 {
		targets := make([]located, len(j.Writes))
		for i, w := range j.Writes {
			if targets[i], forwardErr = a.withContent(chatID, w.Workspace, *w.After); forwardErr != nil {
				break
			}
			targets[i].whole = !w.Before.Kept() // as the undo wrote it
		}
		if forwardErr == nil {
			forwardErr = fs.restore(ctx, targets)
		}
		if forwardErr == nil {
			if err := leftovers(); err != nil {
				return false, err
			}
			return true, a.cfg.Store.CommitRevert(j)
		}
	}
	var back []located
	for i, w := range j.Writes {
		if !w.Before.Kept() || changedSince[paths[i]] {
			continue // a file too large to keep cannot come back; a path changed since stays as it is
		}
		s, err := a.withContent(chatID, w.Workspace, w.Before)
		if err != nil {
			return false, err
		}
		s.whole = true // cut short, a file on its way back would read as the user's edit
		back = append(back, s)
	}
	if err := fs.restore(ctx, back); err != nil {
		if forwardErr != nil {
			err = fmt.Errorf("%w (and finishing it failed: %v)", err, forwardErr)
		}
		return false, fmt.Errorf("an undo or redo was interrupted, and its files could not be put back as they were: %w; "+
			"undo or redo again to finish it", err)
	}
	if err := leftovers(); err != nil {
		return false, err
	}
	return false, a.cfg.Store.DropRevert(chatID, j.Change.ID)
}

// underWay reports whether now is a state the journaled write w leaves its path in while it
// is under way, in either direction: a state passesThrough on the way to what it found or to
// what it puts there, or the start of what it puts there, which a file written in place holds
// when the process died while writing it (see tools' writebatch.go). The way back writes
// whole (located.whole), so the start of what it found is no write of the app's: a user who
// cut the file meanwhile changed it.
func (a *Agent) underWay(chatID string, w store.PathChange, now tools.PathState) bool {
	return passesThrough(w.Before, now) || passesThrough(*w.After, now) || a.startOf(chatID, *w.After, now)
}

// startOf reports whether the file now holds less than the kept file want, and only the start
// of its content.
func (a *Agent) startOf(chatID string, want, now tools.PathState) bool {
	if want.Kind != tools.KindFile || now.Kind != tools.KindFile || want.Hash == "" || now.Hash == "" || now.Size >= want.Size {
		return false
	}
	content, err := a.cfg.Store.Content(chatID, want.Hash)
	return err == nil && bytes.HasPrefix(content, now.Content)
}

// passesThrough reports whether now is a state a path has when a restore left it as want, or
// was writing it: a folder's permission bits and a file's are set after it is made.
func passesThrough(want, now tools.PathState) bool {
	if want.Kind != now.Kind {
		return false
	}
	switch want.Kind {
	case tools.KindFile:
		if want.Hash == "" || now.Hash == "" {
			return want.Size == now.Size
		}
		return want.Hash == now.Hash
	case tools.KindSymlink:
		return want.Target == now.Target
	}
	return true
}

// withContent is a state to put back in folder, a file's with its content from the store.
func (a *Agent) withContent(chatID, folder string, s tools.PathState) (located, error) {
	if s.Kind == tools.KindFile && s.Hash != "" {
		var err error
		if s.Content, err = a.cfg.Store.Content(chatID, s.Hash); err != nil {
			return located{}, fmt.Errorf("the content of %s to put back is missing from the database: %w", s.Path, err)
		}
	}
	return located{folder: folder, state: s}, nil
}

// emitReverted announces an undo or a redo done, with the cards and answers it turned (an
// undo's "undone", a redo's back to done): the state of every call that changed files, of the
// chat's tool-call records that calls gives.
func (a *Agent) emitReverted(chatID string, redo bool, res UndoResult, calls callRecords) {
	typ := events.Undo
	if redo {
		typ = events.Redo
	}
	ev := events.Event{ChatID: chatID, Type: typ, ChangeID: res.ChangeID, Reverts: res.Reverts,
		Paths: append(res.Paths, res.Kept...)}
	// the undo is done and recorded: a database that cannot be read now leaves the cards as
	// they were until the chat is opened again, which reads them from the same records
	if states, runs, err := a.revertedStates(chatID, calls); err == nil {
		ev.ToolStates, ev.UndoneRuns = states, runs
	}
	a.emit(ev)
}

// revertedStates are the states of the chat's calls that changed files and the lines of its
// runs whose changes stand undone, as an undo or a redo leaves them. They are read from the
// runs' changes and the per-file reverts that stand, all UndoneOf reads: the undos' and redos'
// own changes, one more with each, are left unread, so that an undo does not slow down with
// the chat's history of undos.
func (a *Agent) revertedStates(chatID string, records callRecords) (map[string]string, map[string]string, error) {
	heads, err := a.cfg.Store.ChangeHeads(chatID)
	if err != nil {
		return nil, nil, err
	}
	changes, err := a.changesPicked(chatID, heads, func(_ int, h store.ChangeOutline) bool {
		return h.Kind == store.ChangeRun || (h.Kind == store.ChangeUndo && len(h.Reverts) == 0 && h.RevertedBy == "")
	})
	if err != nil {
		return nil, nil, err
	}
	calls, err := records()
	if err != nil {
		return nil, nil, err
	}
	changers := map[string]bool{}
	for _, c := range changes {
		for _, pc := range c.Paths {
			changers[pc.CallID] = true
			for _, id := range pc.Calls {
				changers[id] = true
			}
		}
	}
	// under the chat's lock, with no run going (an undo waits for none): no call is of a live run
	undone := UndoneOf(changes, "")
	states := map[string]string{}
	for _, r := range calls {
		if changers[r.ID] {
			states[r.ID] = undone.State(r, false)
		}
	}
	return states, undone.Runs, nil
}

// callRecords gives a chat's tool-call records.
type callRecords func() ([]store.ToolCallRecord, error)

// readCallRecords starts reading a chat's tool-call records in the background, for the
// announcement of an undo or a redo: it changes none of them, and decoding them (their
// arguments, their diffs) takes as long as a good part of its writes, which it overlaps.
func (a *Agent) readCallRecords(chatID string) callRecords {
	type read struct {
		calls []store.ToolCallRecord
		err   error
	}
	done := make(chan read, 1) // never blocks: an undo that fails reads no further
	go func() {
		calls, err := a.cfg.Store.ToolCalls(chatID)
		done <- read{calls, err}
	}()
	return sync.OnceValues(func() ([]store.ToolCallRecord, error) {
		r := <-done
		return r.calls, r.err
	})
}
