package agentloop

import (
	"cmp"
	"context"
	"encoding/json"
	"fmt"
	"maps"
	"path"
	"slices"
	"strings"
	"time"

	"prototyper/model/vocab"
	"prototyper/store"
	"prototyper/tools"
	"prototyper/tools/diff"
)

// Undo and redo put back what the file tools of a chat changed, from the checkpoints the
// runs recorded (see checkpoint.go). Undo is exact: contents, permission bits, created files
// and folders removed, deleted ones back. It never clobbers the user: a path that changed
// since the run wrote it stops the undo before anything is written, unless the caller
// forces it or keeps the user's version beside the restored one. Every undo is recorded as a
// change of its own, with what it replaced, so a redo takes it back. The window and the
// command line both call these methods.

// UndoOptions choose what an undo takes back. With none set, it is the newest run of the
// chat that changed files and was not undone.
type UndoOptions struct {
	// RunID undoes that run.
	RunID string `json:"runId,omitempty"`
	// FromMessage undoes the runs of that user message and every later run of the chat,
	// newest first ("Restore to here").
	FromMessage string `json:"fromMessage,omitempty"`
	// FromRun undoes that run and every later run of the chat, newest first (what the window
	// sends for a message it knows by the run it started).
	FromRun string `json:"fromRun,omitempty"`
	// Path puts one path back as it was before the chat first changed it (the review's
	// per-file revert).
	Path string `json:"path,omitempty"`
	// Workspace is the folder of Path, for a chat whose runs wrote the same name in two
	// folders (the review's FileChange.Workspace); "" is the folder the chat last changed
	// it in.
	Workspace string `json:"workspace,omitempty"`
	// All puts every path the chat changed back as it was before the chat first changed it,
	// and takes back every run that stands (the review's Revert all).
	All bool `json:"all,omitempty"`
	// Force overwrites paths that changed since the run wrote them.
	Force bool `json:"force,omitempty"`
	// Keep puts the user's version of each such path beside the restored one
	// (NAME.mine) rather than refusing.
	Keep bool `json:"keep,omitempty"`
}

// UndoResult is what an undo or a redo did.
type UndoResult struct {
	ChangeID string   `json:"changeId"` // the undo's or redo's own change
	Reverts  []string `json:"reverts"`  // the changes taken back (run ids for an undo)
	Paths    []string `json:"paths"`    // the paths put back
	Kept     []string `json:"kept,omitempty"`
	// Removed are the paths of Paths that were not there before: taking back their creation
	// removed them.
	Removed []string `json:"removed,omitempty"`
	// Elsewhere are the folders, other than the chat's folder now, that the paths were put
	// back in: a chat whose folder changed takes back each change where it was made.
	Elsewhere []string `json:"elsewhere,omitempty"`
	// InChatFolder: some of the paths were put back in the chat's folder now.
	InChatFolder bool `json:"inChatFolder,omitempty"`
	// NotPutBack are the paths an undo went past (Keep or Force) because what was there before
	// was too large to keep.
	NotPutBack []NotPutBack `json:"notPutBack,omitempty"`
}

// NotPutBack is a path an undo could not put back: what was there before was a file too
// large to keep (Bytes). Gone: there is nothing there now (the run deleted it); otherwise it
// holds what the run left. Sentence says so, for a person (the window and the command line
// show it as it is).
type NotPutBack struct {
	Path     string `json:"path"`
	Bytes    int64  `json:"bytes"`
	Gone     bool   `json:"gone,omitempty"`
	Sentence string `json:"sentence"`
}

func notPutBack(c Conflict, gone bool) NotPutBack {
	n := NotPutBack{Path: c.Path, Bytes: c.Bytes, Gone: gone}
	if gone {
		n.Sentence = fmt.Sprintf("%s is gone: it was too large (%s) to keep when it was deleted, so it could not be put back", c.Path, sizeWords(c.Bytes))
	} else {
		n.Sentence = fmt.Sprintf("%s was not put back: it was too large (%s) to keep when it was changed, so it holds what was written over it", c.Path, sizeWords(c.Bytes))
	}
	return n
}

// Undo takes back changes of the chat's file tools, as opts choose.
func (a *Agent) Undo(ctx context.Context, chatID string, opts UndoOptions) (UndoResult, error) {
	return a.revert(ctx, chatID, false, opts)
}

// Redo takes back the chat's newest undo that stands.
func (a *Agent) Redo(ctx context.Context, chatID string, opts UndoOptions) (UndoResult, error) {
	return a.revert(ctx, chatID, true, opts)
}

// revert plans, checks, records and applies an undo (or a redo), under the chat's lock: no
// run starts meanwhile, and none may be running. Each path is put back in the folder its run
// wrote it in, whatever the chat's folder is now.
func (a *Agent) revert(ctx context.Context, chatID string, redo bool, opts UndoOptions) (UndoResult, error) {
	cs := a.chat(chatID)
	cs.mu.Lock()
	defer cs.mu.Unlock()
	if cs.done != nil {
		return UndoResult{}, ErrChatBusy
	}
	req := requestOf(redo, opts)
	if res, done, err := a.settleInterrupted(ctx, chatID, req); err != nil || done {
		return res, err
	}
	changes, err := a.changesToPlan(chatID, redo, opts)
	if err != nil {
		return UndoResult{}, err
	}
	var plan revertPlan
	if redo {
		plan, err = planRedo(changes)
	} else {
		plan, err = a.planUndo(chatID, changes, opts)
	}
	if err != nil {
		return UndoResult{}, err
	}
	fs := a.openFolders()
	defer fs.close()
	settings, err := a.cfg.Store.Settings()
	if err != nil {
		return UndoResult{}, err
	}
	// each path is judged by what its change recorded, whatever the cap is now; this undo
	// keeps of each (for a redo) what today's cap keeps
	limit := settings.CheckpointLimit()
	now, err := fs.states(ctx, plan.paths, plan.readLimit(limit))
	if err != nil {
		return UndoResult{}, err
	}
	target, conflicts := plan.simulate(now)
	kept := keptUnder(now, limit)
	if len(conflicts) > 0 && !opts.Force && !opts.Keep {
		return UndoResult{}, &ConflictError{Conflicts: conflicts, Redo: redo}
	}
	if opts.Keep && !opts.Force {
		// a version the app did not read whole cannot be put beside the restored one, and the
		// restore would overwrite it: nothing is written
		for _, c := range conflicts {
			if s := kept[loc{c.Workspace, c.Path}]; s.Kind == tools.KindFile && !s.Kept() && !c.NotKept {
				return UndoResult{}, fmt.Errorf("your version of %s (%s) is larger than the %s the app keeps of a file, so it "+
					"cannot be kept beside the restored one, and nothing was changed: copy it elsewhere yourself, then overwrite it (Overwrite mine, or --force)",
					c.Path, sizeWords(s.Size), sizeWords(limit))
			}
		}
	}
	chatFolder := ""
	if chat, err := a.cfg.Store.Chat(chatID); err == nil {
		chatFolder = chat.Workspace
	}
	res := UndoResult{ChangeID: newChangeID(), Reverts: plan.reverts}
	for _, c := range conflicts {
		if c.NotKept {
			res.NotPutBack = append(res.NotPutBack, notPutBack(c, now[loc{c.Workspace, c.Path}].Kind == tools.KindAbsent))
		}
	}
	change := store.Change{ID: res.ChangeID, ChatID: chatID, Kind: store.ChangeUndo, Reverts: plan.reverts}
	if redo {
		change.Kind = store.ChangeRedo
	}
	var restore []located
	// the journal's writes: each path written, from what it was to what it becomes; those
	// that change their path are the change's paths (store.RevertJournal)
	var writes []store.PathChange
	put := func(l loc, before, t tools.PathState) {
		restore = append(restore, located{l.folder, t, !before.Kept()})
		t.Content = nil
		writes = append(writes, store.PathChange{Path: l.path, Workspace: l.folder, Before: before, After: &t})
	}
	for _, l := range plan.paths {
		t := target[l]
		if t.Same(now[l]) {
			if t.Kind == tools.KindAbsent {
				// nothing to put back, but named: a write of it the app died in may have left
				// its temporary file in a folder that goes
				put(l, kept[l], t)
			}
			continue
		}
		if t.Kind == tools.KindFile {
			if t.Content, err = a.cfg.Store.Content(chatID, t.Hash); err != nil {
				return UndoResult{}, fmt.Errorf("the earlier content of %s is missing from the database: %w", l.path, err)
			}
		}
		put(l, kept[l], t)
		res.Paths = append(res.Paths, l.path)
		if t.Kind == tools.KindAbsent {
			res.Removed = append(res.Removed, l.path)
		}
		switch {
		case l.folder == chatFolder:
			res.InChatFolder = true
		case !slices.Contains(res.Elsewhere, l.folder):
			res.Elsewhere = append(res.Elsewhere, l.folder)
		}
	}
	if opts.Keep && !opts.Force {
		for _, c := range conflicts {
			l := loc{c.Workspace, c.Path}
			s := kept[l]
			if c.NotKept || (s.Kind != tools.KindFile && s.Kind != tools.KindSymlink && s.Kind != tools.KindDir) {
				continue // nothing of the user's to keep: a path missing, or left as it is
			}
			ws, err := fs.get(l.folder)
			if err != nil {
				return UndoResult{}, err
			}
			mine := mineName(ctx, ws, c.Path, plan.pathsIn(l.folder))
			s.Path = mine
			put(loc{l.folder, mine}, tools.PathState{Path: mine, Kind: tools.KindAbsent}, s)
			res.Kept = append(res.Kept, mine)
		}
	}
	j := store.RevertJournal{Change: change, Revert: plan.marks, Restore: plan.restores, Writes: writes, Request: req}
	if j.Result, err = json.Marshal(res); err != nil {
		return UndoResult{}, err
	}
	if err := a.cfg.Store.BeginRevert(j, slices.Collect(maps.Values(kept))); err != nil {
		return UndoResult{}, err
	}
	calls := a.readCallRecords(chatID) // after the journal's commit, which it would slow down
	if err := fs.restore(ctx, restore); err != nil {
		if _, backErr := a.settle(ctx, fs, j, false); backErr != nil {
			return UndoResult{}, fmt.Errorf("the files could not all be put back (%v): %w", err, backErr)
		}
		return UndoResult{}, fmt.Errorf("%w: %w", ErrNothingReverted, err)
	}
	if err := a.cfg.Store.CommitRevert(j); err != nil {
		return UndoResult{}, fmt.Errorf("the files were put back, but the database could not record it (%w); undo or redo again to record it", err)
	}
	a.emitReverted(chatID, redo, res, calls)
	return res, nil
}

// loc is a path in the folder a run wrote it in: a chat whose folder changed between runs
// may have written the same name in two folders.
type loc struct{ folder, path string }

// located is a state to put back in a folder.
type located struct {
	folder string
	state  tools.PathState
	// whole: a file written whole (a temporary file renamed over it), never in place, for a
	// path whose state before the write cannot come back (too large to keep) or a write on the
	// way back: cut short, it stays as it was rather than holding a part of its new content
	whole bool
}

// changesOf is the chat's changes, oldest first, each path with its folder: a change
// recorded before folders were kept with it is in the chat's folder.
func (a *Agent) changesOf(chatID string) ([]store.Change, error) {
	changes, err := a.cfg.Store.Changes(chatID)
	if err != nil {
		return nil, err
	}
	return a.inFolders(chatID, changes)
}

// changesToPlan are the changes an undo or a redo may take back, oldest first, with their
// paths (as changesOf gives them): picked by the heads of the chat's changes, so that taking back the
// last run reads that run's paths and not the chat's history. An undo of one path, or of all,
// reads them all: any change may hold a path.
func (a *Agent) changesToPlan(chatID string, redo bool, opts UndoOptions) ([]store.Change, error) {
	if !redo && (opts.Path != "" || opts.All) {
		return a.changesOf(chatID)
	}
	outlines, err := a.cfg.Store.ChangeHeads(chatID)
	if err != nil {
		return nil, err
	}
	notShown, err := a.cfg.Store.RunsNotShown(chatID)
	if err != nil {
		return nil, err
	}
	if opts.RunID != "" && notShown[opts.RunID] && !redo {
		return nil, fmt.Errorf("%w: that run is of a version of this chat that is not shown; show that version in the window (‹ ›) to undo it", ErrNothingToUndo)
	}
	// a run of a version not shown, and an undo that took one back, are left as they are: what
	// the screen shows of them is elsewhere
	elsewhere := func(o store.ChangeOutline) bool { return ofVersionNotShown(o.Kind, o.ID, o.Reverts, notShown) }
	standing := func(o store.ChangeOutline) bool {
		return o.Kind == store.ChangeRun && o.RevertedBy == "" && o.Left > 0 && !elsewhere(o)
	}
	var skipped bool // a change that would be taken back but for its version
	var ids []string
	newest := func(pick func(store.ChangeOutline) bool) {
		for i := len(outlines) - 1; i >= 0; i-- {
			if pick(outlines[i]) {
				ids = append(ids, outlines[i].ID)
				return
			}
		}
	}
	switch {
	case redo:
		newest(func(o store.ChangeOutline) bool {
			if o.Kind != store.ChangeUndo || o.RevertedBy != "" || o.Touched == 0 {
				return false
			}
			skipped = skipped || elsewhere(o)
			return !elsewhere(o)
		})
		if len(ids) == 0 && skipped {
			return nil, fmt.Errorf("%w: the undo left to take back is of a version of this chat that is not shown; show that version in the window (‹ ›) to redo it", ErrNothingToRedo)
		}
	case opts.FromMessage != "" || opts.FromRun != "":
		for _, o := range outlines {
			if standing(o) {
				ids = append(ids, o.ID)
			}
		}
	case opts.RunID != "":
		newest(func(o store.ChangeOutline) bool { return o.ID == opts.RunID && o.Kind == store.ChangeRun })
	default:
		newest(func(o store.ChangeOutline) bool {
			skipped = skipped || (o.Kind == store.ChangeRun && o.RevertedBy == "" && o.Left > 0)
			return standing(o)
		})
		if len(ids) == 0 && skipped {
			return nil, fmt.Errorf("%w: the runs that changed files are of a version of this chat that is not shown; show that version in the window (‹ ›) to undo them", ErrNothingToUndo)
		}
	}
	changes := make([]store.Change, 0, len(ids))
	for _, id := range ids {
		c, err := a.cfg.Store.RunChange(chatID, id)
		if err != nil {
			return nil, err
		}
		if c != nil {
			changes = append(changes, *c)
		}
	}
	return a.inFolders(chatID, changes)
}

// ofVersionNotShown reports whether a change (of kind, by its id and the changes it took back)
// is of a version of the chat not shown: a run of one ([store.DB.RunsNotShown]), or an undo
// that took back such runs alone. Undo and redo leave it as it is; the window offers neither
// for it. An undo that also took back a run shown (a Revert all) is the shown version's: no
// version would ever make it redoable otherwise.
func ofVersionNotShown(kind, id string, reverts []string, notShown map[string]bool) bool {
	switch kind {
	case store.ChangeRun:
		return notShown[id]
	case store.ChangeUndo:
		return len(reverts) > 0 && !slices.ContainsFunc(reverts, func(r string) bool { return !notShown[r] })
	}
	return false
}

// inFolders gives each path of changes its folder: one recorded before folders were kept with
// it is in the chat's folder.
func (a *Agent) inFolders(chatID string, changes []store.Change) ([]store.Change, error) {
	chat, err := a.cfg.Store.Chat(chatID)
	if err != nil {
		return nil, err
	}
	folder := cmp.Or(chat.Workspace, a.cfg.Workspace)
	for i := range changes {
		for j := range changes[i].Paths {
			pc := &changes[i].Paths[j]
			pc.Workspace = cmp.Or(pc.Workspace, folder)
		}
	}
	return changes, nil
}

// PathFolder is the folder that holds a path the chat's file tools touched: the folder of
// the newest run (or undo) that touched it, else the chat's folder. Given a workspace (one
// the chat's review names for the path), it is that folder, and only when a change of the
// chat touched the path there.
func (a *Agent) PathFolder(chatID, workspace, rel string) (string, error) {
	changes, err := a.changesOf(chatID)
	if err != nil {
		return "", err
	}
	p := path.Clean(rel)
	for i := len(changes) - 1; i >= 0; i-- {
		pc := changes[i].Path(p)
		if workspace != "" {
			pc = changes[i].PathIn(workspace, p)
		}
		if pc != nil {
			return pc.Workspace, nil
		}
	}
	if workspace != "" {
		return "", fmt.Errorf("this chat changed no %s in %s: open the review again to see its files", rel, workspace)
	}
	chat, err := a.cfg.Store.Chat(chatID)
	if err != nil {
		return "", err
	}
	return cmp.Or(chat.Workspace, a.cfg.Workspace), nil
}

// folders are the workspaces an undo reads and writes, each opened once.
type folders struct {
	opts tools.WorkspaceOptions
	open map[string]*tools.Workspace
}

func (a *Agent) openFolders() *folders {
	return &folders{opts: a.cfg.Files, open: map[string]*tools.Workspace{}}
}

func (f *folders) get(dir string) (*tools.Workspace, error) {
	if ws, ok := f.open[dir]; ok {
		return ws, nil
	}
	ws, err := tools.OpenWorkspace(dir, f.opts)
	if err != nil {
		return nil, err
	}
	f.open[dir] = ws
	return ws, nil
}

func (f *folders) close() {
	for _, ws := range f.open {
		ws.Close()
	}
}

// states reads the state of each path in its folder, keeping (and hashing) a file's content up
// to keep(path) bytes.
func (f *folders) states(ctx context.Context, paths []loc, keep func(loc) int64) (map[loc]tools.PathState, error) {
	out := make(map[loc]tools.PathState, len(paths))
	for _, l := range paths {
		ws, err := f.get(l.folder)
		if err != nil {
			return nil, err
		}
		ws.LendFolders([]string{l.path}) // a folder a change closed (chmod 0) is read and taken back
		s, err := ws.States(ctx, []string{l.path}, keep(l))
		if err != nil {
			return nil, err
		}
		out[l] = s[0]
	}
	return out, nil
}

// readLimit is how much of each path's file an undo reads: today's cap, or more for a file
// that a change of the plan recorded whole under a higher cap, so that it is compared by its
// content as it was recorded (and not found "changed since" because the cap went down).
func (p *revertPlan) readLimit(limit int64) func(loc) int64 {
	recorded := map[loc]int64{}
	for _, step := range p.steps {
		for _, pc := range step.Paths {
			if a := pc.After; a != nil && a.Kind == tools.KindFile && a.Hash != "" {
				l := loc{pc.Workspace, pc.Path}
				recorded[l] = max(recorded[l], a.Size)
			}
		}
	}
	return func(l loc) int64 { return max(limit, recorded[l]) }
}

// sameAsRecorded reports whether a path is as a change recorded it, judged by what was
// recorded then: a file too large for the cap of that time was recorded by its size and
// permission bits only, so these are what is compared, whatever the cap is now (or was when
// the other state was recorded). A file read from disk is hashed whenever its recorded state
// is ([revertPlan.readLimit]), so its content is compared whenever it can be.
func sameAsRecorded(recorded, now tools.PathState) bool {
	if recorded.Kind == tools.KindFile && now.Kind == tools.KindFile && (recorded.Hash == "" || now.Hash == "") {
		return recorded.Mode == now.Mode && recorded.Size == now.Size
	}
	return recorded.Same(now)
}

// keptUnder is states as a cap of limit keeps them: a larger file is known by its size and
// permission bits, its content neither kept nor hashed.
func keptUnder(states map[loc]tools.PathState, limit int64) map[loc]tools.PathState {
	out := maps.Clone(states)
	for l, s := range out {
		if s.Kind == tools.KindFile && s.Size > limit {
			s.Hash, s.Content = "", nil
			out[l] = s
		}
	}
	return out
}

// restore puts the states back, folder by folder, in the order given within each.
func (f *folders) restore(ctx context.Context, states []located) error {
	var order []string
	byFolder := map[string][]tools.PathState{}
	whole := map[loc]bool{}
	for _, s := range states {
		if _, ok := byFolder[s.folder]; !ok {
			order = append(order, s.folder)
		}
		byFolder[s.folder] = append(byFolder[s.folder], s.state)
		whole[loc{s.folder, s.state.Path}] = s.whole
	}
	for _, dir := range order {
		ws, err := f.get(dir)
		if err != nil {
			return err
		}
		if err := ws.RestoreWith(ctx, byFolder[dir], func(p string) bool { return whole[loc{dir, p}] }); err != nil {
			return err
		}
	}
	return nil
}

// revertPlan is what an undo or a redo takes back: changes, newest first, each path of each
// from what it left to what it found.
type revertPlan struct {
	steps    []store.Change
	paths    []loc        // every path involved, in the order first met
	reverts  []string     // the changes taken back
	marks    []string     // changes marked taken back (not for a per-file revert)
	restores []string     // changes that stand again (a redo's undone runs)
	met      map[loc]bool // the paths of paths: a plan of thousands looks each up once
}

func (p *revertPlan) add(c store.Change) {
	p.steps = append(p.steps, c)
	p.reverts = append(p.reverts, c.ID)
	if p.met == nil {
		p.met = map[loc]bool{}
	}
	for _, pc := range c.Paths {
		if l := (loc{pc.Workspace, pc.Path}); !p.met[l] {
			p.met[l] = true
			p.paths = append(p.paths, l)
		}
	}
}

// pathsIn are the plan's paths in one folder.
func (p *revertPlan) pathsIn(folder string) []string {
	var out []string
	for _, l := range p.paths {
		if l.folder == folder {
			out = append(out, l.path)
		}
	}
	return out
}

// simulate walks the steps newest first from the states on disk: each path must be as the
// step left it, and becomes what the step found. It returns the states to put back and the
// paths that were not as expected.
func (p *revertPlan) simulate(now map[loc]tools.PathState) (map[loc]tools.PathState, []Conflict) {
	cur := maps.Clone(now)
	var conflicts []Conflict
	seen := map[loc]bool{}
	for _, step := range p.steps {
		for i := len(step.Paths) - 1; i >= 0; i-- {
			pc := step.Paths[i]
			l := loc{pc.Workspace, pc.Path}
			if pc.After != nil && !sameAsRecorded(*pc.After, cur[l]) && !seen[l] {
				seen[l] = true
				conflicts = append(conflicts, Conflict{Path: pc.Path, Workspace: pc.Workspace, Reason: changedSince(*pc.After, cur[l])})
			}
			if !pc.Before.Kept() && !seen[l] {
				seen[l] = true
				conflicts = append(conflicts, Conflict{Path: pc.Path, Workspace: pc.Workspace, Reason: fmt.Sprintf(
					"was too large (%s) to keep when it was changed, so it cannot be put back; it is left as it is", sizeWords(pc.Before.Size))})
			}
			cur[l] = pc.Before
		}
	}
	// a path that cannot be put back stays as it is, also when forced
	for i, c := range conflicts {
		if l := (loc{c.Workspace, c.Path}); !cur[l].Kept() {
			conflicts[i].NotKept, conflicts[i].Bytes = true, cur[l].Size
			cur[l] = now[l]
		}
	}
	return cur, conflicts
}

// changedSince says how a path differs from what the change left.
func changedSince(left, now tools.PathState) string {
	switch {
	case now.Kind == tools.KindAbsent:
		return "was deleted after it was written"
	case left.Kind == tools.KindAbsent:
		return "was created again after it was removed"
	case now.Kind != left.Kind:
		return fmt.Sprintf("is now a %s", kindWord(now.Kind))
	case now.Kind == tools.KindFile && now.Hash == left.Hash:
		return fmt.Sprintf("had its permissions changed (%v, was %v) after it was written", now.Mode, left.Mode)
	}
	return "was changed after it was written (by you, another chat or another program)"
}

func kindWord(kind string) string {
	switch kind {
	case tools.KindDir:
		return "folder"
	case tools.KindSymlink:
		return "symbolic link"
	case tools.KindOther:
		return "special file"
	}
	return "file"
}

func sizeWords(n int64) string {
	if n >= 1<<20 {
		return fmt.Sprintf("%.1f MiB", float64(n)/(1<<20))
	}
	return fmt.Sprintf("%d bytes", n)
}

// planUndo picks the changes an undo takes back.
func (a *Agent) planUndo(chatID string, changes []store.Change, opts UndoOptions) (revertPlan, error) {
	standing := func(c store.Change) bool { return c.Kind == store.ChangeRun && c.RevertedBy == "" && c.Changed() }
	var plan revertPlan
	switch {
	case opts.Path != "":
		// back to before the chat first changed it, from what the chat's last change left
		p, folder := path.Clean(opts.Path), opts.Workspace
		if folder == "" {
			folder, _ = a.PathFolder(chatID, "", p)
		}
		var first, last *store.PathChange
		for i := range changes {
			if pc := changes[i].PathIn(folder, p); pc != nil {
				if first == nil {
					first = pc
				}
				last = pc
			}
		}
		if first != nil {
			plan.add(store.Change{Paths: []store.PathChange{{Path: p, Workspace: folder, Before: first.Before, After: last.After}}})
			plan.reverts = nil
		}
	case opts.All:
		// one step per path, from what the chat's last change left to before its first
		var whole store.Change
		at := map[loc]int{}
		for _, c := range changes {
			for _, pc := range c.Paths {
				l := loc{pc.Workspace, pc.Path}
				if i, ok := at[l]; ok {
					whole.Paths[i].After = pc.After
					continue
				}
				at[l] = len(whole.Paths)
				whole.Paths = append(whole.Paths, pc)
			}
		}
		plan.add(whole)
		plan.reverts = nil
		for _, c := range changes {
			if standing(c) {
				plan.reverts = append(plan.reverts, c.ID)
			}
		}
		plan.marks = plan.reverts
	case opts.FromMessage != "" || opts.FromRun != "":
		runs, err := a.runsFrom(chatID, opts.FromMessage, opts.FromRun)
		if err != nil {
			return plan, err
		}
		for i := len(changes) - 1; i >= 0; i-- {
			if standing(changes[i]) && runs[changes[i].ID] {
				plan.add(changes[i])
			}
		}
		plan.marks = plan.reverts
	case opts.RunID != "":
		for _, c := range changes {
			if c.ID == opts.RunID && c.Kind == store.ChangeRun {
				if c.RevertedBy != "" {
					return plan, fmt.Errorf("%w: that run was undone already", ErrNothingToUndo)
				}
				if !c.Changed() {
					return plan, fmt.Errorf("%w: that run changed no file", ErrNothingToUndo)
				}
				plan.add(c)
			}
		}
		plan.marks = plan.reverts
	default:
		for i := len(changes) - 1; i >= 0; i-- {
			if standing(changes[i]) {
				plan.add(changes[i])
				break
			}
		}
		plan.marks = plan.reverts
	}
	if len(plan.paths) == 0 {
		return plan, fmt.Errorf("%w: no file the agent changed in this chat is left to put back", ErrNothingToUndo)
	}
	return plan, nil
}

// planRedo takes back the newest undo that stands.
func planRedo(changes []store.Change) (revertPlan, error) {
	var plan revertPlan
	for i := len(changes) - 1; i >= 0; i-- {
		c := changes[i]
		if c.Kind == store.ChangeUndo && c.RevertedBy == "" && len(c.Paths) > 0 {
			plan.add(c)
			plan.marks = []string{c.ID}
			plan.restores = c.Reverts
			return plan, nil
		}
	}
	return plan, fmt.Errorf("%w: no undo of this chat is left to take back", ErrNothingToRedo)
}

// runsFrom are the runs of a user message and of every later message of the chat, or (given
// a run) that run and every run started after it.
func (a *Agent) runsFrom(chatID, messageID, runID string) (map[string]bool, error) {
	if runID != "" {
		all, err := a.cfg.Store.RunsOf(chatID)
		if err != nil {
			return nil, err
		}
		i := slices.IndexFunc(all, func(r store.Run) bool { return r.ID == runID })
		if i < 0 {
			return nil, &store.NotFoundError{Kind: "run", ID: runID}
		}
		runs := map[string]bool{}
		for _, r := range all {
			if !r.StartedAt.Before(all[i].StartedAt) {
				runs[r.ID] = true
			}
		}
		return runs, nil
	}
	msgs, err := a.cfg.Store.Messages(chatID)
	if err != nil {
		return nil, err
	}
	runs := map[string]bool{}
	found := false
	for _, m := range msgs {
		found = found || m.ID == messageID
		if found && m.RunID != "" {
			runs[m.RunID] = true
		}
	}
	if !found {
		return nil, &store.NotFoundError{Kind: "message", ID: messageID}
	}
	return runs, nil
}

// mineName is where the user's version of p is kept: NAME.mine, or NAME.mine2, … when that
// is taken.
func mineName(ctx context.Context, ws *tools.Workspace, p string, taken []string) string {
	for n := 1; ; n++ {
		name := p + ".mine"
		if n > 1 {
			name = fmt.Sprintf("%s.mine%d", p, n)
		}
		if slices.Contains(taken, name) {
			continue
		}
		if s, err := ws.States(ctx, []string{name}, 0); err == nil && s[0].Kind == tools.KindAbsent {
			return name
		}
	}
}

// newChangeID names an undo or a redo: its time, then random bytes.
func newChangeID() string {
	return fmt.Sprintf("change_%x_%s", time.Now().UnixMilli(), strings.TrimPrefix(vocab.NewCallID(), "call_"))
}

// FileChange is one path of a chat's review: how it differs now from before the chat first
// changed it.
type FileChange struct {
	Path string `json:"path"`
	// Workspace is the folder Path is in: the one its runs wrote it in, which may no longer
	// be the chat's.
	Workspace string `json:"workspace"`
	Status    string `json:"status"` // created, changed, deleted
	Diff      string `json:"diff,omitempty"`
	Bytes     int64  `json:"bytes"` // its size now
}

// Statuses of a [FileChange].
const (
	FileCreated = "created"
	FileChanged = "changed"
	FileDeleted = "deleted"
)

// maxReviewDiff caps each diff of the review.
const maxReviewDiff = 64 << 10

// ChatChanges is the review of a chat: every file its runs created, changed or deleted that
// differs now from before the chat first touched it, with the combined diff; each in the
// folder its runs wrote it in.
func (a *Agent) ChatChanges(ctx context.Context, chatID string) ([]FileChange, error) {
	changes, err := a.changesOf(chatID)
	if err != nil {
		return nil, err
	}
	first := map[loc]tools.PathState{}
	var order []loc
	for _, c := range changes {
		for _, pc := range c.Paths {
			l := loc{pc.Workspace, pc.Path}
			if _, ok := first[l]; !ok {
				first[l] = pc.Before
				order = append(order, l)
			}
		}
	}
	if len(order) == 0 {
		return nil, nil
	}
	fs := a.openFolders()
	defer fs.close()
	settings, err := a.cfg.Store.Settings()
	if err != nil {
		return nil, err
	}
	limit := settings.CheckpointLimit()
	now, err := fs.states(ctx, order, func(l loc) int64 { // a file kept whole is compared whole
		if was := first[l]; was.Kind == tools.KindFile && was.Hash != "" {
			return max(limit, was.Size)
		}
		return limit
	})
	if err != nil {
		return nil, err
	}
	var out []FileChange
	for _, l := range order {
		was, is := first[l], now[l]
		if sameAsRecorded(was, is) || was.Kind == tools.KindDir || is.Kind == tools.KindDir {
			continue
		}
		p := l.path
		fc := FileChange{Path: p, Workspace: l.folder, Status: FileChanged, Bytes: is.Size}
		oldName, newName := "a/"+p, "b/"+p
		switch {
		case was.Kind == tools.KindAbsent:
			fc.Status, oldName = FileCreated, "/dev/null"
		case is.Kind == tools.KindAbsent:
			fc.Status, newName = FileDeleted, "/dev/null"
		}
		var oldText []byte
		if was.Kind == tools.KindFile && was.Hash != "" {
			oldText, _ = a.cfg.Store.Content(chatID, was.Hash)
		}
		fc.Diff = diff.Unified(oldName, newName, textOf(oldText), textOf(is.Content), diff.Options{MaxBytes: maxReviewDiff})
		out = append(out, fc)
	}
	return out, nil
}

// textOf is a content as the review's diff shows it; binary content is named, not shown.
func textOf(b []byte) string {
	if slices.Contains(b[:min(len(b), 8000)], 0) {
		return "(binary content)\n"
	}
	return string(b)
}

// AllowAlways allows a call that waits for approval and every later call of its tool in
// the chat's workspace ("Always allow this tool in this workspace"): the settings keep it
// (store.Settings.AlwaysAllow), where the user can take it back. The other calls of the same
// tool waiting in the batch are allowed with it.
func (a *Agent) AllowAlways(toolCallID string) error {
	cs := a.chatWaitingFor(toolCallID)
	if cs == nil {
		return fmt.Errorf("%w (tool call %q)", ErrNoPendingApproval, toolCallID)
	}
	cs.mu.Lock()
	var name string
	var same []string
	if i := cs.paused.index(toolCallID); i >= 0 {
		name = cs.paused.Calls[i].Name
		for _, c := range cs.paused.Calls {
			if c.Name == name && c.ID != toolCallID && c.Outcome == nil && c.Policy == ApproveAsk && c.Decision == "" {
				same = append(same, c.ID)
			}
		}
	}
	cs.mu.Unlock()
	chat, err := a.cfg.Store.Chat(cs.id)
	if err != nil {
		return err
	}
	workspace := cmp.Or(chat.Workspace, a.cfg.Workspace)
	if name != "" && workspace != "" {
		if _, err := a.cfg.Store.UpdateSettings(func(s *store.Settings) error {
			if s.AllowedIn(workspace, name) {
				return nil
			}
			if s.AlwaysAllow == nil {
				s.AlwaysAllow = map[string][]string{}
			}
			s.AlwaysAllow[workspace] = append(s.AlwaysAllow[workspace], name)
			return nil
		}); err != nil {
			return err
		}
	}
	for _, id := range same {
		if err := a.Decide(id, DecisionAllow, textAlwaysAllowed); err != nil {
			return err
		}
	}
	return a.Decide(toolCallID, DecisionAllow, textAlwaysAllowed)
}
