package agentloop

import (
	"prototyper/store"
)

// runCommit is the commit that starts a run: the run's record and the messages that start it
// (the user's, the instructions a first turn shows). A run with a prompt does not wait for it
// before it asks the model: the request needs only what the run read, and the disk's wait
// overlaps the request's way to the server. Everything else waits for it: nothing of the run
// is said (the instructions a first turn shows, then run.started, then the run's events, all
// once the commit returned) and nothing of it is written before the commit is durable, so a
// message shown as sent is never lost; a commit that fails cancels the
// request, and the run ends having said and written nothing.
type runCommit struct {
	done  chan struct{}   // closed once the commit is durable (or failed) and run.started is out
	err   error           // why it failed
	saved []store.Message // the messages as stored, set before done is closed
}

func newRunCommit() *runCommit { return &runCommit{done: make(chan struct{})} }

// open lets the run go on after its commit: saved are the messages as stored, err why the
// commit failed (nil: it did not).
func (c *runCommit) open(saved []store.Message, err error) {
	c.saved, c.err = saved, err
	close(c.done)
}

// awaitCommit waits for the run's commit and returns why it failed; every event and write of
// the run passes here first.
func (r *run) awaitCommit() error {
	<-r.commit.done
	return r.commit.err
}

// committed reports, without waiting, whether the run's commit is over and durable (a commit
// that failed is not: nothing may be written under the run's id).
func (r *run) committed() bool {
	select {
	case <-r.commit.done:
		return r.commit.err == nil
	default:
		return false
	}
}

// withPending is the history read from the store with the messages that start the run
// (pending) at its end, whether the commit had already stored them or not: they are told
// apart by their run.
func (r *run) withPending(stored []store.Message) []store.Message {
	if len(r.pending) == 0 {
		return stored
	}
	out := stored[:0:0]
	for _, m := range stored {
		if m.RunID != r.id {
			out = append(out, m)
		}
	}
	return append(out, r.pending...)
}

// syncHistory puts the messages that start the run, as stored (their ids), in the place of
// the pending ones in the run's history: a summary tells a user's message by its id. Called by
// the run's goroutine once the commit is over.
func (r *run) syncHistory() {
	if len(r.pending) == 0 || r.awaitCommit() != nil {
		return
	}
	var users []store.Message
	for _, m := range r.commit.saved {
		if m.Role == store.RoleUser {
			users = append(users, m)
		}
	}
	for i, m := range r.history {
		if len(users) == 0 {
			break
		}
		if m.ID == "" && m.RunID == r.id && m.Role == store.RoleUser {
			r.history[i] = withFiles(users[0])
			users = users[1:]
		}
	}
	r.pending = nil
}
