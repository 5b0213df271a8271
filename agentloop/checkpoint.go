package agentloop

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"sync"

	"prototyper/events"
	"prototyper/store"
	"prototyper/tools"
)

// A call of a tool that changes files is checkpointed: just before it runs, the loop asks
// the toolbox ([ChangeTracker]) which paths the call will touch, reads their state, and
// commits it with the call's pending record ([store.DB.StartToolCall]), in one transaction.
// After the call, what it left at those paths is committed with its result. Undo puts the
// prior states back (see undo.go).

// maxKeptPerCall bounds, as a multiple of the per-file limit, the contents one call keeps:
// a folder deleted with thousands of files in it is kept as far as this goes, and the rest
// is said to be beyond undo.
const maxKeptPerCall = 4

// callChange is what the loop knows, before a call runs, of the paths it will change.
type callChange struct {
	paths   []string
	before  []tools.PathState
	notKept []string // files too large to keep: their change cannot be undone
	err     error    // the call cannot run; the error it would fail with
}

// beforeCall reads the state of the paths call c will change. A toolbox that tracks no
// changes, or a tool that changes no file, gives nothing.
func (r *run) beforeCall(ctx context.Context, c plannedCall) callChange {
	ct, ok := r.tools.(ChangeTracker)
	if !ok {
		return callChange{}
	}
	args, err := r.validArgs(c)
	if err != nil {
		return callChange{err: err}
	}
	paths, ok, err := ct.Touches(ctx, tools.Call{ID: c.ID, Name: c.Name, Args: args})
	if !ok || err != nil {
		return callChange{err: err}
	}
	cc := callChange{paths: paths}
	if cc.before, cc.notKept, err = r.statesBefore(ctx, ct, paths, false); err != nil {
		return callChange{err: err}
	}
	return cc
}

// statesBefore reads the state of paths before a call changes them, keeping the contents as
// far as the call's budget goes; notKept lists the files beyond it. When stoppable, a done
// ctx (Stop) ends the reading with its error.
func (r *run) statesBefore(ctx context.Context, ct ChangeTracker, paths []string, stoppable bool) (before []tools.PathState, notKept []string, err error) {
	budget := r.keep * maxKeptPerCall
	for _, p := range paths {
		if err := ctx.Err(); stoppable && err != nil {
			return nil, nil, err
		}
		states, err := ct.States(ctx, []string{p}, min(r.keep, budget))
		if err != nil {
			return nil, nil, err
		}
		s := states[0]
		if !s.Kept() {
			notKept = append(notKept, p)
		}
		budget -= int64(len(s.Content))
		before = append(before, s)
	}
	return before, notKept, nil
}

// lateChange is what a call whose paths are known only once it ran (a command) checkpointed
// while it ran: the paths whose prior state it recorded.
type lateChange struct {
	mu    sync.Mutex
	paths []string
	begun bool // the tool asked for its checkpoint: it is about to change the workspace
}

func (l *lateChange) begin() {
	l.mu.Lock()
	l.begun = true
	l.mu.Unlock()
}

// changing reports whether the tool has begun checkpointing and applying its change: from
// then on it ends promptly on Stop (nothing applied, or what was applied taken back), and the
// run waits for it rather than record the paths while they change.
func (l *lateChange) changing() bool {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.begun
}

func (l *lateChange) add(paths []string) {
	l.mu.Lock()
	l.paths = append(l.paths, paths...)
	l.mu.Unlock()
}

func (l *lateChange) taken() []string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.paths
}

// checkpointLate is the [tools.CheckpointFunc] of call c: it records the state of the paths
// the call names with the run's change, in one commit, before the tool changes them. Files
// too large to keep are said first: an approver (a terminal) is asked whether to change them
// beyond undo; without one, or under --approve auto, the change is refused.
func (r *run) checkpointLate(rec store.ToolCallRecord, c plannedCall, late *lateChange) tools.CheckpointFunc {
	return func(paths []string) ([]string, error) {
		late.begin()
		ct, ok := r.tools.(ChangeTracker)
		if !ok || len(paths) == 0 {
			return nil, nil
		}
		before, notKept, err := r.statesBefore(r.ctx, ct, paths, true) // Stop: nothing is changed
		if err != nil {
			return nil, fmt.Errorf("Its changes were not applied: the files they replace could not be read to keep them for undo (%w).", err)
		}
		if len(notKept) > 0 {
			if err := r.confirmNotUndoable(rec, c, notKept); err != nil {
				return nil, err
			}
		}
		recorded, err := r.a.cfg.Store.AddBefore(rec, before)
		if err != nil {
			return nil, fmt.Errorf("Its changes were not applied: they could not be kept for undo (%w).", err)
		}
		late.add(paths)
		if len(recorded) > 0 || len(notKept) > 0 {
			r.emit(events.Event{Type: events.Checkpoint, MessageID: rec.MessageID, ToolCallID: rec.ID, Name: rec.Name,
				Paths: recorded, Created: absentBefore(recorded, before), NotUndoable: notKept})
		}
		return notKept, nil
	}
}

// confirmNotUndoable asks whether a change may replace files too large to keep: only an
// approver asks (a terminal, not under --approve auto); otherwise the change is refused,
// naming the files.
func (r *run) confirmNotUndoable(rec store.ToolCallRecord, c plannedCall, notKept []string) error {
	named := strings.Join(notKept, ", ")
	if len(notKept) > 10 {
		named = fmt.Sprintf("%s and %d more files", strings.Join(notKept[:10], ", "), len(notKept)-10)
	}
	refused := fmt.Errorf("Its changes were not applied: %s %s larger than what undo keeps (%d bytes per file, %d per call), so the change could not be taken back. "+
		"Raise the checkpoint limit in the settings, or run the command yourself.", named, isOrAre(len(notKept)), r.keep, r.keep*maxKeptPerCall)
	if r.opts.Approver == nil || r.opts.Approve == ApproveAuto {
		return refused
	}
	decision, _, err := r.opts.Approver.Approve(r.ctx, ApprovalRequest{ChatID: r.cs.id, RunID: r.id, CallID: rec.ID, Name: rec.Name,
		Args: c.Args, Preview: &tools.Preview{NotUndoable: notKept},
		Question: fmt.Sprintf("The command changed %s, larger than what undo keeps: apply its changes anyway, beyond undo?", named)})
	if err != nil || decision != DecisionAllow {
		return refused
	}
	return nil
}

func isOrAre(n int) string {
	if n == 1 {
		return "is"
	}
	return "are"
}

// afterCall reads what the call left at the paths it changed (contents are hashed, not
// kept). A stopped run still records it: the call may have changed them.
func (r *run) afterCall(cc callChange) []tools.PathState {
	ct, ok := r.tools.(ChangeTracker)
	if !ok || len(cc.paths) == 0 {
		return nil
	}
	after, err := ct.States(context.WithoutCancel(r.ctx), cc.paths, r.keep)
	if err != nil {
		return nil
	}
	for i := range after {
		after[i].Content = nil
	}
	return after
}

// preview is the change call c would make, for the user who decides on it, and the state
// of the paths it was made against (contents dropped); nil for a call that changes no file.
func (r *run) preview(c plannedCall) (*tools.Preview, []tools.PathState) {
	ct, ok := r.tools.(ChangeTracker)
	if !ok {
		return nil, nil
	}
	var p *tools.Preview
	args, err := r.validArgs(c)
	if err == nil {
		p, err = ct.Preview(r.ctx, tools.Call{ID: c.ID, Name: c.Name, Args: args})
	}
	if err != nil { // a call that cannot succeed says why before it is approved, not after
		return &tools.Preview{Fails: err.Error()}, nil
	}
	if p == nil {
		return nil, nil
	}
	cc := r.beforeCall(r.ctx, c)
	p.NotUndoable = cc.notKept
	seen := make([]tools.PathState, len(cc.before))
	for i, st := range cc.before {
		st.Content = nil
		seen[i] = st
	}
	return p, seen
}

// notAsPreviewed is why call c may not run as approved, or nil: an approval holds for exactly
// the change the user saw, never for one made over a path someone changed meanwhile, nor for
// a path added since (a file put in a folder after its deletion was shown). A call shown for
// no approval has nothing to hold to.
func notAsPreviewed(c plannedCall, cc callChange) error {
	if len(c.Previewed) == 0 || cc.err != nil {
		return nil
	}
	seen := make(map[string]tools.PathState, len(c.Previewed))
	for _, s := range c.Previewed {
		seen[s.Path] = s
	}
	for _, now := range cc.before {
		was, ok := seen[now.Path]
		switch {
		case !ok:
			return fmt.Errorf("not run: %q is new, made after the change was shown for approval (by the user, another chat or "+
				"another program), so the approval does not cover it; call it again to show the change with %q in it", now.Path, now.Path)
		case !now.Same(was):
			return fmt.Errorf("not run: %s changed after its change was shown for approval (by the user, another chat or "+
				"another program); call it again to show the change against %s as it is now", now.Path, now.Path)
		}
	}
	return nil
}

// startCall commits the pending record of a call with the prior state of what it will
// change, and announces the checkpoint.
func (r *run) startCall(rec store.ToolCallRecord, cc callChange) error {
	recorded, err := r.a.cfg.Store.StartToolCall(rec, cc.before)
	if err != nil {
		return err
	}
	if len(recorded) > 0 || len(cc.notKept) > 0 {
		r.emit(events.Event{Type: events.Checkpoint, MessageID: rec.MessageID, ToolCallID: rec.ID, Name: rec.Name,
			Paths: recorded, Created: absentBefore(recorded, cc.before), NotUndoable: cc.notKept})
	}
	return nil
}

// absentBefore lists the paths of recorded where nothing was before the call: the run is
// creating them (store.PathChange.Effect says so until the call's result says otherwise).
func absentBefore(recorded []string, before []tools.PathState) []string {
	var out []string
	for _, s := range before {
		if s.Kind == tools.KindAbsent && slices.Contains(recorded, s.Path) {
			out = append(out, s.Path)
		}
	}
	return out
}

// validArgs are the arguments of c as validated; a call resumed after a restart is
// validated again.
func (r *run) validArgs(c plannedCall) (tools.Args, error) {
	if c.valid != nil {
		return c.valid, nil
	}
	return r.tools.Validate(c.Name, c.Args)
}
