package store

import (
	"encoding/json"

	bolt "go.etcd.io/bbolt"
)

// PutToolCall stores a tool-call record, or updates the one with the same ChatID and ID.
// The loop calls it with AwaitingApproval while the user decides, and with Pending (and
// StartedAt) just before the tool runs; it is on disk when PutToolCall returns.
//
// An update must be of the same call (same message and tool) and must not start it again:
// a record may go from awaiting approval to pending or to its outcome, and an outcome may be
// written again, but a call that is pending or done is never made pending or awaiting again.
// Anything else is a second call with an id already taken (a server can send the same id
// twice): it is refused with [ErrDuplicateToolCall] and the stored record is kept.
func (db *DB) PutToolCall(r ToolCallRecord) error {
	return db.update("save tool call", func(tx *bolt.Tx) error { return putToolCall(tx, r) })
}

func putToolCall(tx *bolt.Tx, r ToolCallRecord) error {
	{
		tools, err := chatSubBucket(tx, r.ChatID, bucketTools)
		if err != nil {
			return err
		}
		index, err := chatSubBucket(tx, r.ChatID, bucketToolIndex)
		if err != nil {
			return err
		}
		key := index.Get([]byte(r.ID))
		if key != nil {
			if raw := tools.Get(key); raw != nil {
				var old ToolCallRecord
				if err := json.Unmarshal(raw, &old); err != nil {
					return err
				}
				if !old.updatableTo(r) {
					return &DuplicateToolCallError{ChatID: r.ChatID, ID: r.ID}
				}
				if r.Preview == nil {
					r.Preview = old.Preview // what the user approved stays with the call
				}
			}
		} else {
			seq, err := tools.NextSequence()
			if err != nil {
				return err
			}
			key = seqKey(seq)
			if err := index.Put([]byte(r.ID), key); err != nil {
				return err
			}
		}
		return putJSON(tools, key, &r)
	}
}

// updatableTo reports whether next may replace r: the same call, moving forward.
func (r ToolCallRecord) updatableTo(next ToolCallRecord) bool {
	if r.MessageID != next.MessageID || r.Name != next.Name {
		return false
	}
	startsAgain := next.Pending || next.AwaitingApproval
	return r.AwaitingApproval || !startsAgain
}

// CompleteToolCall records a tool's result right after it ran: Pending false, OK, Output,
// Details, Stopped, FinishedAt and DurationMs. A record that already has its result is not completed
// again ([ErrDuplicateToolCall]): a second call with the same id never overwrites the first
// one's result.
func (db *DB) CompleteToolCall(chatID, id string, res ToolResult) (ToolCallRecord, error) {
	var r ToolCallRecord
	err := db.update("complete tool call", func(tx *bolt.Tx) error {
		tools, key, err := toolKey(tx, chatID, id)
		if err != nil {
			return err
		}
		if err := json.Unmarshal(tools.Get(key), &r); err != nil {
			return err
		}
		if !r.Pending && !r.AwaitingApproval {
			return &DuplicateToolCallError{ChatID: chatID, ID: id}
		}
		if res.FinishedAt.IsZero() {
			res.FinishedAt = db.now()
		}
		r.Pending, r.AwaitingApproval = false, false
		r.OK, r.Output, r.Details, r.FinishedAt = res.OK, res.Output, res.Details, res.FinishedAt
		r.Stopped = res.Stopped && !res.OK
		r.NotRun = res.NotRun
		if !r.StartedAt.IsZero() {
			r.DurationMs = r.FinishedAt.Sub(r.StartedAt).Milliseconds()
		}
		if err := recordAfter(tx, chatID, r.RunID, res.After); err != nil {
			return err
		}
		return putJSON(tools, key, &r)
	})
	return r, err
}

// ToolCall returns one tool-call record.
func (db *DB) ToolCall(chatID, id string) (ToolCallRecord, error) {
	var r ToolCallRecord
	err := db.view(func(tx *bolt.Tx) error {
		tools, key, err := toolKey(tx, chatID, id)
		if err != nil {
			return err
		}
		return json.Unmarshal(tools.Get(key), &r)
	})
	return r, err
}

// ToolCalls returns a chat's tool-call records in the order they were first stored.
func (db *DB) ToolCalls(chatID string) ([]ToolCallRecord, error) {
	var out []ToolCallRecord
	err := db.view(func(tx *bolt.Tx) error {
		tools, err := chatSubBucket(tx, chatID, bucketTools)
		if err != nil {
			return err
		}
		return appendDecoded(tools, &out)
	})
	return out, err
}

func toolKey(tx *bolt.Tx, chatID, id string) (*bolt.Bucket, []byte, error) {
	tools, err := chatSubBucket(tx, chatID, bucketTools)
	if err != nil {
		return nil, nil, err
	}
	index, err := chatSubBucket(tx, chatID, bucketToolIndex)
	if err != nil {
		return nil, nil, err
	}
	key := index.Get([]byte(id))
	if key == nil || tools.Get(key) == nil {
		return nil, nil, &NotFoundError{Kind: "tool call", ID: id}
	}
	return tools, key, nil
}
