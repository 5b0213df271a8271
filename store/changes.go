package store

import (
	"encoding/json"
	"slices"
	"time"

	bolt "go.etcd.io/bbolt"

	"prototyper/tools"
)

// Kinds of [Change]: what made it.
const (
	// ChangeRun holds what a run's file tools touched.
	ChangeRun = "run"
	// ChangeUndo holds what an undo put back.
	ChangeUndo = "undo"
	// ChangeRedo holds what a redo put back (it takes back an undo).
	ChangeRedo = "redo"
)

// Change is a checkpoint of a chat: the state of every path a run (or an undo, or a redo)
// touched, from before it touched it, and what it left there. A run's change is made of the
// pre-images its file tools recorded, each committed with the pending record of the call that
// first touched the path (once per path per run); an undo's is recorded whole before it
// writes anything. A file's content is kept apart, once per chat for each content (by hash).
type Change struct {
	ID     string `json:"id"` // the run's id, or the undo's or redo's own
	ChatID string `json:"chatId"`
	Kind   string `json:"kind"` // ChangeRun, ChangeUndo, ChangeRedo
	// Reverts lists the changes an undo or a redo took back, newest first.
	Reverts []string `json:"reverts,omitempty"`
	// Paths are in the order they were first touched.
	Paths     []PathChange `json:"paths"`
	CreatedAt time.Time    `json:"createdAt"`
	// RevertedBy is the undo (or redo) that took this change back; "" while it stands.
	RevertedBy string `json:"revertedBy,omitempty"`
}

// PathChange is one path of a [Change].
type PathChange struct {
	Path string `json:"path"`
	// Workspace is the folder Path is in: the workspace of the run that touched it (a
	// chat's folder can change between runs). "" in changes recorded before it was kept:
	// the chat's folder.
	Workspace string `json:"workspace,omitempty"`
	CallID    string `json:"callId,omitempty"` // the call that first touched it
	// Calls are the later calls of the run that touched it, in order: what an undo of the
	// path takes back is theirs too. Empty in changes recorded before it was kept.
	Calls  []string        `json:"calls,omitempty"`
	Before tools.PathState `json:"before"`
	// After is what the change left there; nil while the call that touched it last has not
	// completed (or never did: the app died while it ran).
	After *tools.PathState `json:"after,omitempty"`
}

// MarshalJSON records the change with its path exact ([tools.SplitName]): a name that is not
// UTF-8 is put back as it was.
func (pc PathChange) MarshalJSON() ([]byte, error) {
	type plain PathChange
	v := struct {
		plain
		PathBytes []byte `json:"pathBytes,omitempty"`
	}{plain: plain(pc)}
	v.Path, v.PathBytes = tools.SplitName(pc.Path)
	return json.Marshal(v)
}

// UnmarshalJSON reads a change recorded by MarshalJSON, or by a version without exact names.
func (pc *PathChange) UnmarshalJSON(b []byte) error {
	type plain PathChange
	var v struct {
		plain
		PathBytes []byte `json:"pathBytes"`
	}
	if err := json.Unmarshal(b, &v); err != nil {
		return err
	}
	*pc = PathChange(v.plain)
	pc.Path = tools.JoinName(pc.Path, v.PathBytes)
	return nil
}

// Path returns the change of path p, or nil.
func (c *Change) Path(p string) *PathChange {
	for i := range c.Paths {
		if c.Paths[i].Path == p {
			return &c.Paths[i]
		}
	}
	return nil
}

// Changed reports whether c left one of its paths other than it was before: a run whose
// every call failed without touching its files changed nothing.
func (c *Change) Changed() bool {
	for i := range c.Paths {
		if !c.Paths[i].Unchanged() {
			return true
		}
	}
	return false
}

// PathIn returns the change of path p in the folder workspace, or nil.
func (c *Change) PathIn(workspace, p string) *PathChange {
	for i := range c.Paths {
		if c.Paths[i].Path == p && c.Paths[i].Workspace == workspace {
			return &c.Paths[i]
		}
	}
	return nil
}

// Sub-buckets of a chat holding its changes, made when the chat's first change is recorded.
var (
	bucketChanges     = []byte("changes")     // seq → Change
	bucketChangeIndex = []byte("changeIndex") // change id → seq
	bucketContents    = []byte("contents")    // SHA-256 hex → a file's content
)

// StartToolCall stores r, a record made Pending just before its tool runs, and in the same
// commit the state of every path the call is about to touch, for the run's change: a path
// the run already touched keeps its first pre-image. recorded lists the paths whose
// pre-image this call added. A crash leaves either neither or both.
func (db *DB) StartToolCall(r ToolCallRecord, before []tools.PathState) (recorded []string, err error) {
	err = db.update("save tool call", func(tx *bolt.Tx) error {
		if err := putToolCall(tx, r); err != nil {
			return err
		}
		recorded, err = db.addBefore(tx, r, before)
		return err
	})
	return recorded, err
}

// AddBefore records, for the run's change, the state of paths the running call r (already
// started with [DB.StartToolCall]) is about to change: a call whose paths are known only once
// it ran (a command) records them before its change is applied. A path the run already
// touched keeps its first pre-image. recorded lists the paths whose pre-image this added.
func (db *DB) AddBefore(r ToolCallRecord, before []tools.PathState) (recorded []string, err error) {
	err = db.update("save the state before a change", func(tx *bolt.Tx) error {
		recorded, err = db.addBefore(tx, r, before)
		return err
	})
	return recorded, err
}

func (db *DB) addBefore(tx *bolt.Tx, r ToolCallRecord, before []tools.PathState) (recorded []string, err error) {
	if len(before) == 0 || r.RunID == "" {
		return nil, nil
	}
	b, err := changeBuckets(tx, r.ChatID)
	if err != nil {
		return nil, err
	}
	c, key, err := b.load(r.RunID)
	if err != nil {
		return nil, err
	}
	if c == nil {
		c = &Change{ID: r.RunID, ChatID: r.ChatID, Kind: ChangeRun, CreatedAt: db.now()}
	}
	known := make(map[string]int, len(c.Paths)+len(before)) // c.Path for each: one pass, not one per state
	for i := range c.Paths {
		known[c.Paths[i].Path] = i
	}
	for _, s := range before {
		if i, ok := known[s.Path]; ok {
			if pc := &c.Paths[i]; pc.CallID != r.ID && !slices.Contains(pc.Calls, r.ID) {
				pc.Calls = append(pc.Calls, r.ID)
			}
			continue
		}
		if err := b.keep(s); err != nil {
			return nil, err
		}
		known[s.Path] = len(c.Paths)
		c.Paths = append(c.Paths, PathChange{Path: s.Path, Workspace: r.Workspace, CallID: r.ID, Before: s})
		recorded = append(recorded, s.Path)
	}
	return recorded, b.save(c, key)
}

// RecordChange stores a change made whole (an undo's or a redo's), the content of each of
// its states, and which changes it takes back (RevertedBy set to c.ID) or brings back
// (RevertedBy cleared), in one commit.
func (db *DB) RecordChange(c Change, contents []tools.PathState, revert, restore []string) error {
	if c.CreatedAt.IsZero() {
		c.CreatedAt = db.now()
	}
	return db.update("save change", func(tx *bolt.Tx) error {
		return recordChange(tx, c, contents, revert, restore)
	})
}

func recordChange(tx *bolt.Tx, c Change, contents []tools.PathState, revert, restore []string) error {
	b, err := changeBuckets(tx, c.ChatID)
	if err != nil {
		return err
	}
	for _, s := range contents {
		if err := b.keep(s); err != nil {
			return err
		}
	}
	mark := func(ids []string, by string) error {
		for _, id := range ids {
			old, key, err := b.load(id)
			if err != nil {
				return err
			}
			if old == nil {
				return &NotFoundError{Kind: "change", ID: id}
			}
			old.RevertedBy = by
			if err := b.save(old, key); err != nil {
				return err
			}
		}
		return nil
	}
	if err := mark(revert, c.ID); err != nil {
		return err
	}
	if err := mark(restore, ""); err != nil {
		return err
	}
	return b.save(&c, nil)
}

// Changes returns a chat's changes, oldest first.
func (db *DB) Changes(chatID string) ([]Change, error) {
	var out []Change
	err := db.view(func(tx *bolt.Tx) error {
		cb := chatBucket(tx, chatID)
		if cb == nil {
			return &NotFoundError{Kind: "chat", ID: chatID}
		}
		if b := cb.Bucket(bucketChanges); b != nil {
			return appendDecoded(b, &out)
		}
		return nil
	})
	return out, err
}

// RunChange returns the change of one run of the chat (nil when the run changed nothing).
func (db *DB) RunChange(chatID, runID string) (*Change, error) {
	var c *Change
	err := db.view(func(tx *bolt.Tx) error {
		cb := chatBucket(tx, chatID)
		if cb == nil {
			return &NotFoundError{Kind: "chat", ID: chatID}
		}
		s := changeStore{changes: cb.Bucket(bucketChanges), index: cb.Bucket(bucketChangeIndex)}
		if s.changes == nil || s.index == nil {
			return nil // the chat changed nothing yet
		}
		var err error
		c, _, err = s.load(runID)
		return err
	})
	return c, err
}

// Unchanged reports whether the change left pc as it was before (a call that failed, or
// that put back what it wrote): nothing was changed there.
func (pc *PathChange) Unchanged() bool { return pc.After != nil && pc.After.Same(pc.Before) }

// Content returns a file's content kept for a change of the chat, by its hash.
func (db *DB) Content(chatID, hash string) ([]byte, error) {
	if hash == emptyHash {
		return []byte{}, nil
	}
	var out []byte
	err := db.view(func(tx *bolt.Tx) error {
		cb := chatBucket(tx, chatID)
		var v []byte
		if cb != nil {
			if b := cb.Bucket(bucketContents); b != nil {
				v = b.Get([]byte(hash))
			}
		}
		if v == nil {
			return &NotFoundError{Kind: "kept content", ID: hash}
		}
		out = append([]byte{}, v...)
		return nil
	})
	return out, err
}

// recordAfter sets, in the run's change, what the call left at each path it touched.
func recordAfter(tx *bolt.Tx, chatID, runID string, after []tools.PathState) error {
	if len(after) == 0 || runID == "" {
		return nil
	}
	b, err := changeBuckets(tx, chatID)
	if err != nil {
		return err
	}
	c, key, err := b.load(runID)
	if err != nil || c == nil {
		return err
	}
	first := make(map[string]*PathChange, len(c.Paths)) // c.Path for each: one pass, not one per state
	for i := range c.Paths {
		if _, ok := first[c.Paths[i].Path]; !ok {
			first[c.Paths[i].Path] = &c.Paths[i]
		}
	}
	for _, s := range after {
		if pc := first[s.Path]; pc != nil {
			s.Content = nil
			pc.After = &s
		}
	}
	return b.save(c, key)
}

type changeStore struct {
	changes, index, contents *bolt.Bucket
}

func changeBuckets(tx *bolt.Tx, chatID string) (*changeStore, error) {
	cb := chatBucket(tx, chatID)
	if cb == nil {
		return nil, &NotFoundError{Kind: "chat", ID: chatID}
	}
	var s changeStore
	var err error
	if s.changes, err = cb.CreateBucketIfNotExists(bucketChanges); err != nil {
		return nil, err
	}
	if s.index, err = cb.CreateBucketIfNotExists(bucketChangeIndex); err != nil {
		return nil, err
	}
	if s.contents, err = cb.CreateBucketIfNotExists(bucketContents); err != nil {
		return nil, err
	}
	return &s, nil
}

// load returns the change id and its key, or nil when there is none.
func (s *changeStore) load(id string) (*Change, []byte, error) {
	key := s.index.Get([]byte(id))
	if key == nil {
		return nil, nil, nil
	}
	var c Change
	if err := json.Unmarshal(s.changes.Get(key), &c); err != nil {
		return nil, nil, err
	}
	return &c, append([]byte{}, key...), nil
}

// save writes c under key, or under a new key when key is nil.
func (s *changeStore) save(c *Change, key []byte) error {
	if key == nil {
		seq, err := s.changes.NextSequence()
		if err != nil {
			return err
		}
		key = seqKey(seq)
		if err := s.index.Put([]byte(c.ID), key); err != nil {
			return err
		}
	}
	return putJSON(s.changes, key, c)
}

// emptyHash is the hash of an empty file, whose content is never stored.
var emptyHash = tools.HashContent(nil)

// keep stores the content of a file's state once per chat.
func (s *changeStore) keep(st tools.PathState) error {
	if st.Kind != tools.KindFile || st.Hash == "" || st.Hash == emptyHash || s.contents.Get([]byte(st.Hash)) != nil {
		return nil
	}
	return s.contents.Put([]byte(st.Hash), st.Content)
}
