package agentloop

import (
	"context"
	"fmt"

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
	budget := r.keep * maxKeptPerCall
	for _, p := range paths {
		states, err := ct.States(ctx, []string{p}, min(r.keep, budget))
		if err != nil {
			return callChange{err: err}
		}
		s := states[0]
		if !s.Kept() {
			cc.notKept = append(cc.notKept, p)
		}
		budget -= int64(len(s.Content))
		cc.before = append(cc.before, s)
	}
	return cc
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
			Paths: recorded, NotUndoable: cc.notKept})
	}
	return nil
}

// validArgs are the arguments of c as validated; a call resumed after a restart is
// validated again.
func (r *run) validArgs(c plannedCall) (tools.Args, error) {
	if c.valid != nil {
		return c.valid, nil
	}
	return r.tools.Validate(c.Name, c.Args)
}
