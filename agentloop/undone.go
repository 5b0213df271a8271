package agentloop

import (
	"cmp"
	"fmt"
	"strings"

	"prototyper/store"
)

// CardUndone is the state of a completed call whose changes an undo took back (an Undo of
// its run, a Restore to an earlier message, a Revert of its file in the review) and no redo
// brought back: the call ran, but what it did to the files is no longer there.
const CardUndone = "undone"

// Undone is what of a chat's changes stands taken back now, read from its change records
// alone ([UndoneOf]), so the window, `chats show` and exports say the same after a restart.
type Undone struct {
	// Calls are the calls whose changes are taken back, by call id.
	Calls map[string]bool
	// Runs is, for each run some of whose changes are taken back, the line its answer
	// carries saying so.
	Runs map[string]string
}

// UndoneOf reads from a chat's changes (oldest first, as [store.DB.Changes] lists them)
// what stands taken back; folder is the chat's, where a change recorded without its folder
// was made:
//
//   - a run whose change an undo took back (its RevertedBy is set; a redo clears it): each
//     call of it that changed a file;
//   - a path a per-file revert put back (an undo that takes back no run and that no redo took
//     back): each call of an earlier run that changed that path in that folder.
//
// A path a call left as it found it (the call failed) takes nothing of that call back.
func UndoneOf(changes []store.Change, folder string) Undone {
	u := Undone{Calls: map[string]bool{}, Runs: map[string]string{}}
	at := func(pc store.PathChange) loc { return loc{cmp.Or(pc.Workspace, folder), pc.Path} }
	reverted := map[loc]bool{} // paths a later per-file revert put back, walking newest first
	for i := len(changes) - 1; i >= 0; i-- {
		c := changes[i]
		switch {
		case c.Kind == store.ChangeUndo && len(c.Reverts) == 0 && c.RevertedBy == "":
			for _, pc := range c.Paths {
				reverted[at(pc)] = true
			}
		case c.Kind == store.ChangeRun:
			var taken []string
			all := true
			for _, pc := range c.Paths {
				if pc.Unchanged() {
					continue
				}
				if c.RevertedBy == "" && !reverted[at(pc)] {
					all = false
					continue
				}
				taken = append(taken, pc.Path)
				if pc.CallID != "" {
					u.Calls[pc.CallID] = true
				}
				for _, id := range pc.Calls {
					u.Calls[id] = true
				}
			}
			if len(taken) > 0 {
				u.Runs[c.ID] = undoneLine(taken, all)
			}
		}
	}
	return u
}

// undoneLine is what a run's answer says when its changes to paths were taken back: all of
// them, or some.
func undoneLine(paths []string, all bool) string {
	named := strings.Join(paths, ", ")
	if len(paths) > 3 {
		named = fmt.Sprintf("%s and %d more", strings.Join(paths[:3], ", "), len(paths)-3)
	}
	if all {
		return "The changes made here were undone: " + named + "."
	}
	return "Some changes made here were undone: " + named + "."
}

// State is the state of a stored call's card once what was undone is counted: a completed
// call whose changes are taken back is [CardUndone].
func (u Undone) State(r store.ToolCallRecord, ofLiveRun bool) string {
	s := RecordState(r, ofLiveRun)
	if s == CardCompleted && u.Calls[r.ID] {
		return CardUndone
	}
	return s
}

// undone reads what stands taken back in a chat. Opening a chat asks it: the heads of the
// chat's changes pick the ones UndoneOf reads (the runs an undo took back, the per-file
// reverts that stand and the runs before them), so that a chat where nothing stands undone
// decodes none of its changes' states.
func (a *Agent) undone(chatID string) (Undone, error) {
	heads, err := a.cfg.Store.ChangeHeads(chatID)
	if err != nil {
		return Undone{}, err
	}
	lastRevert := -1 // the newest per-file revert that stands
	for i, h := range heads {
		if h.Kind == store.ChangeUndo && len(h.Reverts) == 0 && h.RevertedBy == "" {
			lastRevert = i
		}
	}
	changes, err := a.changesPicked(chatID, heads, func(i int, h store.ChangeOutline) bool {
		if i > lastRevert && (h.Kind != store.ChangeRun || h.RevertedBy == "") {
			return false
		}
		return h.Kind != store.ChangeRedo && (h.Kind != store.ChangeUndo || len(h.Reverts) == 0) // UndoneOf reads neither
	})
	if err != nil {
		return Undone{}, err
	}
	if len(changes) == 0 {
		return Undone{Calls: map[string]bool{}, Runs: map[string]string{}}, nil
	}
	return UndoneOf(changes, ""), nil // changesPicked gave each path its folder
}

// changesPicked reads whole the chat's changes of heads that pick keeps (given each one's
// place among heads), each path with its folder; none when it keeps none.
func (a *Agent) changesPicked(chatID string, heads []store.ChangeOutline, pick func(i int, h store.ChangeOutline) bool) ([]store.Change, error) {
	var changes []store.Change
	for i, h := range heads {
		if !pick(i, h) {
			continue
		}
		c, err := a.cfg.Store.RunChange(chatID, h.ID)
		if err != nil {
			return nil, err
		}
		if c != nil {
			changes = append(changes, *c)
		}
	}
	if len(changes) == 0 {
		return nil, nil
	}
	return a.inFolders(chatID, changes)
}
