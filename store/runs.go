package store

import (
	"encoding/json"
	"sort"
	"time"

	bolt "go.etcd.io/bbolt"

	"prototyper/events"
)

// StartRun records a new live run in a chat. ID (when empty), StartedAt (when zero) and Live
// are set; Phase defaults to events.PhaseSubmitted.
func (db *DB) StartRun(r Run) (Run, error) {
	r, _, err := db.StartRunWith(r)
	return r, err
}

// NewRunID is an id for a run not recorded yet: a run can be named before its
// [DB.StartRunWith] commits it.
func (db *DB) NewRunID() string { return newID(db.now()) }

// StartRunWith is StartRun that also appends msgs (as [DB.AppendMessage] does, with the run's
// ID as their RunID when they have none) to the run's chat, in the same transaction: the run
// and the message that starts it are one commit, so one wait for the disk before the model is
// asked. It returns the messages as stored.
func (db *DB) StartRunWith(r Run, msgs ...Message) (Run, []Message, error) {
	now := db.now()
	if r.ID == "" {
		r.ID = newID(now)
	}
	if r.StartedAt.IsZero() {
		r.StartedAt = now
	}
	if r.Phase == "" {
		r.Phase = events.PhaseSubmitted
	}
	r.Live, r.FinishedAt = true, time.Time{}
	var saved []Message
	err := db.update("start run", func(tx *bolt.Tx) error {
		runs, err := chatSubBucket(tx, r.ChatID, bucketChatRuns)
		if err != nil {
			return err
		}
		if tx.Bucket(bucketRuns).Get([]byte(r.ID)) != nil {
			return &existsError{kind: "run", id: r.ID}
		}
		if err := runs.Put([]byte(r.ID), nil); err != nil {
			return err
		}
		if err := saveRun(tx, &r); err != nil {
			return err
		}
		saved = saved[:0]
		for _, m := range msgs {
			if m.RunID == "" {
				m.RunID = r.ID
			}
			m, err := db.appendMessageTx(tx, r.ChatID, m)
			if err != nil {
				return err
			}
			saved = append(saved, m)
		}
		return nil
	})
	if err != nil {
		return r, nil, err
	}
	return r, saved, nil
}

// UpdateRun lets edit change a run (phase, stop reason, state, …; not its ID or chat) and
// saves it. A run edited to Live false leaves the set of live runs.
func (db *DB) UpdateRun(id string, edit func(*Run)) (Run, error) {
	var r Run
	err := db.update("update run", func(tx *bolt.Tx) error {
		old, err := db.loadRun(tx, id)
		if err != nil {
			return err
		}
		r = old
		edit(&r)
		r.ID, r.ChatID = old.ID, old.ChatID
		return saveRun(tx, &r)
	})
	return r, err
}

// SetRunPhase records the phase a live run is in.
func (db *DB) SetRunPhase(id string, phase events.Phase) (Run, error) {
	return db.UpdateRun(id, func(r *Run) { r.Phase = phase })
}

// FinishRun records how a run ended: no longer live, finished now, with stopReason. A run
// stopped on events.StopAwaitingApproval is left in that phase (with its State) to be resumed;
// every other run goes idle.
func (db *DB) FinishRun(id, stopReason string, state json.RawMessage) (Run, error) {
	now := db.now()
	return db.UpdateRun(id, func(r *Run) {
		r.Live, r.FinishedAt, r.StopReason = false, now, stopReason
		r.Phase = events.PhaseIdle
		switch stopReason {
		case events.StopAwaitingApproval:
			r.Phase = events.PhaseAwaitingApproval
		case events.StopAwaitingSummary:
			r.Phase = events.PhaseAwaitingSummary
		}
		if state != nil {
			r.State = state
		}
	})
}

// AddRunNote keeps a sentence the run said in its chat (see [Run.Notes]).
func (db *DB) AddRunNote(id string, n RunNote) (Run, error) {
	return db.UpdateRun(id, func(r *Run) { r.Notes = append(r.Notes, n) })
}

// Run returns one run.
func (db *DB) Run(id string) (Run, error) {
	var r Run
	err := db.view(func(tx *bolt.Tx) (err error) {
		r, err = db.loadRun(tx, id)
		return err
	})
	return r, err
}

// LiveRuns returns the runs marked live, oldest first. Through a read-only handle there are
// none: a run left live there belongs to a process that died (see [DB.Recovered]).
func (db *DB) LiveRuns() ([]Run, error) {
	if db.opts.ReadOnly {
		return nil, nil
	}
	return db.runsIn(func(tx *bolt.Tx) (*bolt.Bucket, error) { return tx.Bucket(bucketLiveRuns), nil })
}

// RunsOf returns a chat's runs, oldest first.
func (db *DB) RunsOf(chatID string) ([]Run, error) {
	return db.runsIn(func(tx *bolt.Tx) (*bolt.Bucket, error) { return chatSubBucket(tx, chatID, bucketChatRuns) })
}

func (db *DB) runsIn(set func(tx *bolt.Tx) (*bolt.Bucket, error)) ([]Run, error) {
	var out []Run
	err := db.view(func(tx *bolt.Tx) error {
		ids, err := set(tx)
		if err != nil {
			return err
		}
		return ids.ForEach(func(id, _ []byte) error {
			r, err := db.loadRun(tx, string(id))
			if err != nil {
				return err
			}
			out = append(out, r)
			return nil
		})
	})
	sortRuns(out)
	return out, err
}

// sortRuns orders runs oldest first.
func sortRuns(runs []Run) {
	sort.SliceStable(runs, func(i, j int) bool { return runs[i].StartedAt.Before(runs[j].StartedAt) })
}

// recoverLiveRuns marks the runs a dead process left live (see deadRun).
func (db *DB) recoverLiveRuns() error {
	live, err := db.LiveRuns()
	if err != nil || len(live) == 0 {
		return err
	}
	return db.update("mark interrupted runs", func(tx *bolt.Tx) error {
		db.recovered = db.recovered[:0]
		for _, r := range live {
			r = deadRun(r)
			if err := saveRun(tx, &r); err != nil {
				return err
			}
			db.recovered = append(db.recovered, r)
		}
		return nil
	})
}

// deadRun is a run that was live in a process that died, as it is recorded afterwards:
// interrupted, or still paused when it was waiting on an approval (nothing was executing;
// the decision can still be taken). Its tool records stay as they were: a pending one of a
// run that is not live reads as interrupted ([Transcript.Interrupted]).
func deadRun(r Run) Run {
	r.Live = false
	if r.Phase == events.PhaseAwaitingApproval {
		r.StopReason = events.StopAwaitingApproval
	} else {
		r.StopReason = StopInterrupted
	}
	return r
}

// loadRun reads a run. Through a read-only handle a run still marked live is read as dead:
// the handle's shared lock proves that no process is running it.
func (db *DB) loadRun(tx *bolt.Tx, id string) (Run, error) {
	var r Run
	raw := tx.Bucket(bucketRuns).Get([]byte(id))
	if raw == nil {
		return r, &NotFoundError{Kind: "run", ID: id}
	}
	if err := json.Unmarshal(raw, &r); err != nil {
		return r, err
	}
	if r.Live && db.opts.ReadOnly {
		r = deadRun(r)
	}
	return r, nil
}

func saveRun(tx *bolt.Tx, r *Run) error {
	live := tx.Bucket(bucketLiveRuns)
	var err error
	if r.Live {
		err = live.Put([]byte(r.ID), nil)
	} else {
		err = live.Delete([]byte(r.ID))
	}
	if err != nil {
		return err
	}
	return putJSON(tx.Bucket(bucketRuns), []byte(r.ID), r)
}
