package store

import (
	"bytes"
	"encoding/binary"
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
	Paths     []PathChange `json:"paths,omitempty"`
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
// A change is split so that reading it costs by what is asked: its head (the change without
// its paths, with their count) under its seq, each path's record apart, and an index of its
// paths by name that says which it left as they were, read without decoding a record.
var (
	bucketChanges     = []byte("changes")     // seq → changeHead
	bucketChangeIndex = []byte("changeIndex") // change id → seq
	bucketChangePaths = []byte("changePaths") // seq 'p' ordinal → PathChange; seq 'n' path 0 workspace → ordinal, same
	bucketContents    = []byte("contents")    // SHA-256 hex → a file's content
)

// Path keys of bucketChangePaths, after the change's seq (8 bytes).
const (
	pathRecord = 'p' // then the path's ordinal (4 bytes, big-endian): its PathChange
	pathName   = 'n' // then the path, 0, the workspace: the ordinal (4 bytes) and its effect (an effect byte)
)

// Effect bytes of the name index: what the change did to the path ([PathChange.Effect]), read
// without decoding its record. Changes recorded before creations and deletions were told apart
// hold effectEdited for both.
const (
	effectEdited    = 0
	effectUnchanged = 1
	effectCreated   = 2
	effectDeleted   = 3
)

var effectBytes = map[string]byte{PathEdited: effectEdited, PathUnchanged: effectUnchanged, PathCreated: effectCreated, PathDeleted: effectDeleted}

// changeHead is a change as stored: without its paths, which are kept apart, and their count.
type changeHead struct {
	Change
	Touched int `json:"touched"` // paths recorded, the next one's ordinal
	Same    int `json:"same"`    // of them, those the change left as they were
}

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
	h, key, err := b.head(r.RunID)
	if err != nil {
		return nil, err
	}
	if h == nil {
		h = &changeHead{Change: Change{ID: r.RunID, ChatID: r.ChatID, Kind: ChangeRun, CreatedAt: db.now()}}
		if key, err = b.newKey(r.RunID); err != nil {
			return nil, err
		}
	}
	for _, s := range before {
		if ord, found := b.pathOrdinal(key, s.Path); found {
			// a later call of the run touching the path: what an undo of it takes back is its too
			if err := b.addCall(key, ord, r.ID); err != nil {
				return nil, err
			}
			continue
		}
		if err := b.keep(s); err != nil {
			return nil, err
		}
		if err := b.addPath(key, h, PathChange{Path: s.Path, Workspace: r.Workspace, CallID: r.ID, Before: s}); err != nil {
			return nil, err
		}
		recorded = append(recorded, s.Path)
	}
	return recorded, b.putHead(key, h)
}

// ContinueChange makes the change of run from, while it stands, the change of run to: a run
// that resumes a run paused for the user's approval continues its change, so that one undo
// takes back the whole run. The change keeps its place among the chat's changes and its
// paths; only its id becomes to. continued is false when from changed nothing or its change
// was taken back (an undo while the run waited): to then starts a change of its own.
func (db *DB) ContinueChange(chatID, from, to string) (continued bool, err error) {
	if from == "" || to == "" || from == to {
		return false, nil
	}
	err = db.update("continue a run's change", func(tx *bolt.Tx) error {
		s, err := readChanges(tx, chatID)
		if err != nil || s == nil {
			return err
		}
		h, key, err := s.head(from)
		if err != nil || h == nil || h.Kind != ChangeRun || h.RevertedBy != "" {
			return err
		}
		if s.index.Get([]byte(to)) != nil {
			return nil // to has a change of its own already
		}
		if err := s.index.Delete([]byte(from)); err != nil {
			return err
		}
		if err := s.index.Put([]byte(to), key); err != nil {
			return err
		}
		h.ID = to
		continued = true
		return s.putHead(key, h)
	})
	return continued, err
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
			h, key, err := b.head(id)
			if err != nil {
				return err
			}
			if h == nil {
				return &NotFoundError{Kind: "change", ID: id}
			}
			h.RevertedBy = by
			if err := b.putHead(key, h); err != nil {
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
	return b.putWhole(c)
}

// Changes returns a chat's changes, oldest first, each with all its paths. [DB.ChangeOutlines]
// and [DB.RunChange] read less.
func (db *DB) Changes(chatID string) ([]Change, error) {
	var out []Change
	err := db.eachHead(chatID, func(s *changeStore, key []byte, h *changeHead) (err error) {
		if h.Paths, err = s.allPaths(key); err == nil {
			out = append(out, h.Change)
		}
		return err
	})
	return out, err
}

// eachHead calls fn with the head of each of the chat's changes, oldest first, and its key, in
// one read transaction.
func (db *DB) eachHead(chatID string, fn func(s *changeStore, key []byte, h *changeHead) error) error {
	return db.view(func(tx *bolt.Tx) error {
		s, err := readChanges(tx, chatID)
		if err != nil || s == nil {
			return err
		}
		return s.changes.ForEach(func(k, v []byte) error {
			h, err := decodeHead(v)
			if err != nil {
				return err
			}
			return fn(s, k, h)
		})
	})
}

// ChangeOutline is a [Change] as a list shows it: its paths by name, without their states.
type ChangeOutline struct {
	ID         string    `json:"id"`
	Kind       string    `json:"kind"`
	Reverts    []string  `json:"reverts,omitempty"`
	RevertedBy string    `json:"revertedBy,omitempty"`
	CreatedAt  time.Time `json:"createdAt"`
	// Changed are the paths it left other than they were ([Change.Changed]), in the order
	// they were first touched (nil from [DB.ChangeHeads]); Left counts them, Touched counts
	// every path it touched.
	Changed []string `json:"changed"`
	// Created and Deleted are those of Changed it created and deleted ([PathChange.Effect]);
	// the others it edited.
	Created []string `json:"created,omitempty"`
	Deleted []string `json:"deleted,omitempty"`
	Left    int      `json:"left"`
	Touched int      `json:"touched"`
}

// ChangeOutlines returns a chat's changes, oldest first, as a list shows them: read from their
// heads and the index of their paths, never decoding a path's states.
func (db *DB) ChangeOutlines(chatID string) ([]ChangeOutline, error) {
	return db.outlines(chatID, true)
}

// ChangeHeads returns a chat's changes, oldest first, as [DB.ChangeOutlines] does but without
// the names of their paths: read from their heads alone.
func (db *DB) ChangeHeads(chatID string) ([]ChangeOutline, error) {
	return db.outlines(chatID, false)
}

func (db *DB) outlines(chatID string, names bool) ([]ChangeOutline, error) {
	var out []ChangeOutline
	err := db.eachHead(chatID, func(s *changeStore, key []byte, h *changeHead) error {
		o := ChangeOutline{ID: h.ID, Kind: h.Kind, Reverts: h.Reverts, RevertedBy: h.RevertedBy, CreatedAt: h.CreatedAt,
			Touched: h.Touched, Left: h.Touched - h.Same}
		if names {
			o.Changed = []string{}
			if o.Left > 0 {
				o.Changed, o.Created, o.Deleted = s.changedNames(key, h.Touched)
			}
		}
		out = append(out, o)
		return nil
	})
	return out, err
}

// RunChange returns the change of one run of the chat (nil when the run changed nothing), or
// of one undo or redo by its id.
func (db *DB) RunChange(chatID, runID string) (*Change, error) {
	var c *Change
	err := db.viewRunChange(chatID, runID, func(s *changeStore, key []byte, h *changeHead) (err error) {
		if h.Paths, err = s.allPaths(key); err != nil {
			return err
		}
		c = &h.Change
		return nil
	})
	return c, err
}

// viewRunChange calls fn with the head of the change of one run of the chat and its key, in a
// read transaction; not at all when the run changed nothing.
func (db *DB) viewRunChange(chatID, runID string, fn func(s *changeStore, key []byte, h *changeHead) error) error {
	return db.view(func(tx *bolt.Tx) error {
		s, err := readChanges(tx, chatID)
		if err != nil || s == nil {
			return err
		}
		h, key, err := s.head(runID)
		if err != nil || h == nil {
			return err
		}
		return fn(s, key, h)
	})
}

// RunChangeAt returns, of the change of one run of the chat, the record of each of paths it
// touched (its first, in the order of paths; a path it did not touch is left out), reading
// those records only: a call's checkpoint asks this after every call, and a run of a thousand
// calls must not decode its whole change a thousand times.
func (db *DB) RunChangeAt(chatID, runID string, paths []string) ([]PathChange, error) {
	var out []PathChange
	err := db.viewRunChange(chatID, runID, func(s *changeStore, key []byte, _ *changeHead) error {
		seen := make(map[string]bool, len(paths))
		for _, p := range paths {
			if seen[p] {
				continue
			}
			seen[p] = true
			ord, ok := s.pathOrdinal(key, p)
			if !ok {
				continue
			}
			pc, err := s.path(key, ord)
			if err != nil {
				return err
			}
			out = append(out, pc)
		}
		return nil
	})
	return out, err
}

// Unchanged reports whether the change left pc as it was before (a call that failed, or
// that put back what it wrote): nothing was changed there.
func (pc *PathChange) Unchanged() bool { return pc.After != nil && pc.After.Same(pc.Before) }

// What a change did to one of its paths, as a person says it ([PathChange.Effect]).
const (
	PathCreated   = "created"   // nothing was there before
	PathEdited    = "edited"    // something was there before and is there after
	PathDeleted   = "deleted"   // something was there before and nothing is after
	PathUnchanged = "unchanged" // left as it was ([PathChange.Unchanged])
)

// Effect is what the change did to pc, from its state before and after. A path whose call
// has not completed (or never did) was created when nothing was there before, edited
// otherwise: only what the call left tells a deletion.
func (pc *PathChange) Effect() string {
	switch {
	case pc.Unchanged():
		return PathUnchanged
	case pc.Before.Kind == tools.KindAbsent:
		return PathCreated
	case pc.After != nil && pc.After.Kind == tools.KindAbsent:
		return PathDeleted
	}
	return PathEdited
}

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

// recordAfter sets, in the run's change, what the call left at each path it touched: each
// path is found by its name, whatever the number of paths the run touched.
func recordAfter(tx *bolt.Tx, chatID, runID string, after []tools.PathState) error {
	if len(after) == 0 || runID == "" {
		return nil
	}
	b, err := changeBuckets(tx, chatID)
	if err != nil {
		return err
	}
	h, key, err := b.head(runID)
	if err != nil || h == nil {
		return err
	}
	for _, s := range after {
		ord, found := b.pathOrdinal(key, s.Path)
		if !found {
			continue
		}
		pc, err := b.path(key, ord)
		if err != nil {
			return err
		}
		was := pc.Unchanged()
		s.Content = nil
		pc.After = &s
		if err := b.putPath(key, ord, pc); err != nil {
			return err
		}
		switch now := pc.Unchanged(); {
		case now && !was:
			h.Same++
		case was && !now:
			h.Same--
		}
	}
	return b.putHead(key, h)
}

type changeStore struct {
	changes, index, paths, contents *bolt.Bucket
}

// readChanges is the chat's change buckets for reading, nil when the chat changed nothing yet.
func readChanges(tx *bolt.Tx, chatID string) (*changeStore, error) {
	cb := chatBucket(tx, chatID)
	if cb == nil {
		return nil, &NotFoundError{Kind: "chat", ID: chatID}
	}
	s := changeStore{changes: cb.Bucket(bucketChanges), index: cb.Bucket(bucketChangeIndex), paths: cb.Bucket(bucketChangePaths)}
	if s.changes == nil || s.index == nil || s.paths == nil {
		return nil, nil
	}
	return &s, nil
}

func changeBuckets(tx *bolt.Tx, chatID string) (*changeStore, error) {
	cb := chatBucket(tx, chatID)
	if cb == nil {
		return nil, &NotFoundError{Kind: "chat", ID: chatID}
	}
	var s changeStore
	var err error
	for _, b := range []struct {
		name []byte
		into **bolt.Bucket
	}{{bucketChanges, &s.changes}, {bucketChangeIndex, &s.index}, {bucketChangePaths, &s.paths}, {bucketContents, &s.contents}} {
		if *b.into, err = cb.CreateBucketIfNotExists(b.name); err != nil {
			return nil, err
		}
	}
	return &s, nil
}

func decodeHead(v []byte) (*changeHead, error) {
	var h changeHead
	if err := json.Unmarshal(v, &h); err != nil {
		return nil, err
	}
	return &h, nil
}

// head returns the head of change id and its key, or nil when there is none.
func (s *changeStore) head(id string) (*changeHead, []byte, error) {
	key := s.index.Get([]byte(id))
	if key == nil {
		return nil, nil, nil
	}
	h, err := decodeHead(s.changes.Get(key))
	if err != nil {
		return nil, nil, err
	}
	return h, append([]byte{}, key...), nil
}

// newKey is the key of a new change id, indexed by its id.
func (s *changeStore) newKey(id string) ([]byte, error) {
	seq, err := s.changes.NextSequence()
	if err != nil {
		return nil, err
	}
	key := seqKey(seq)
	return key, s.index.Put([]byte(id), key)
}

func (s *changeStore) putHead(key []byte, h *changeHead) error {
	h.Paths = nil
	return putJSON(s.changes, key, h)
}

// putWhole writes c, a change made whole, under a new key.
func (s *changeStore) putWhole(c Change) error {
	key, err := s.newKey(c.ID)
	if err != nil {
		return err
	}
	h := &changeHead{Change: c}
	for _, pc := range c.Paths {
		if err := s.addPath(key, h, pc); err != nil {
			return err
		}
	}
	return s.putHead(key, h)
}

func pathRecordKey(key []byte, ord int) []byte {
	return binary.BigEndian.AppendUint32(append(append(make([]byte, 0, len(key)+5), key...), pathRecord), uint32(ord))
}

// pathNamePrefix is the start of the keys of path p in the name index of change key.
func pathNamePrefix(key []byte, p string) []byte {
	k := append(append(make([]byte, 0, len(key)+len(p)+2), key...), pathName)
	return append(append(k, p...), 0)
}

// addPath records pc as the next path of the change under key.
func (s *changeStore) addPath(key []byte, h *changeHead, pc PathChange) error {
	ord := h.Touched
	h.Touched++
	if pc.Unchanged() {
		h.Same++
	}
	return s.putPath(key, ord, pc)
}

// putPath writes the record of path ord of the change under key, and its entry in the index.
func (s *changeStore) putPath(key []byte, ord int, pc PathChange) error {
	if err := putJSON(s.paths, pathRecordKey(key, ord), pc); err != nil {
		return err
	}
	v := append(binary.BigEndian.AppendUint32(nil, uint32(ord)), effectBytes[pc.Effect()])
	return s.paths.Put(append(pathNamePrefix(key, pc.Path), pc.Workspace...), v)
}

// addCall names call among those that touched path ord of the change under key, once.
func (s *changeStore) addCall(key []byte, ord int, call string) error {
	pc, err := s.path(key, ord)
	if err != nil || pc.CallID == call || slices.Contains(pc.Calls, call) {
		return err
	}
	pc.Calls = append(pc.Calls, call)
	return s.putPath(key, ord, pc)
}

// path decodes the record of path ord of the change under key.
func (s *changeStore) path(key []byte, ord int) (PathChange, error) {
	var pc PathChange
	v := s.paths.Get(pathRecordKey(key, ord))
	if v == nil {
		return pc, &NotFoundError{Kind: "path of a change", ID: string(key)}
	}
	return pc, json.Unmarshal(v, &pc)
}

// pathOrdinal finds path p (in any folder: a run touches each path once) in the change under
// key: its first ordinal.
func (s *changeStore) pathOrdinal(key []byte, p string) (int, bool) {
	prefix := pathNamePrefix(key, p)
	ord, found := 0, false
	c := s.paths.Cursor()
	for k, v := c.Seek(prefix); k != nil && bytes.HasPrefix(k, prefix); k, v = c.Next() {
		if o := int(binary.BigEndian.Uint32(v)); !found || o < ord {
			ord, found = o, true
		}
	}
	return ord, found
}

// allPaths decodes every path of the change under key, in the order they were first touched.
func (s *changeStore) allPaths(key []byte) ([]PathChange, error) {
	var out []PathChange
	prefix := append(append([]byte{}, key...), pathRecord)
	c := s.paths.Cursor()
	for k, v := c.Seek(prefix); k != nil && bytes.HasPrefix(k, prefix); k, v = c.Next() {
		var pc PathChange
		if err := json.Unmarshal(v, &pc); err != nil {
			return nil, err
		}
		out = append(out, pc)
	}
	return out, nil
}

// changedNames reads, from the index alone, the paths of the change under key that it did
// not leave as they were, in the order they were first touched (touched paths in all), and
// of them those it created and those it deleted.
func (s *changeStore) changedNames(key []byte, touched int) (changed, created, deleted []string) {
	byOrd := make([]string, touched)
	effect := make([]byte, touched)
	prefix := append(append([]byte{}, key...), pathName)
	c := s.paths.Cursor()
	for k, v := c.Seek(prefix); k != nil && bytes.HasPrefix(k, prefix); k, v = c.Next() {
		if len(v) < 5 || v[4] == effectUnchanged {
			continue
		}
		name := k[len(prefix):]
		if i := bytes.IndexByte(name, 0); i >= 0 {
			name = name[:i]
		}
		if o := int(binary.BigEndian.Uint32(v)); o < touched {
			byOrd[o], effect[o] = string(name), v[4]
		}
	}
	changed = byOrd[:0] // written behind where it is read
	for o, n := range byOrd {
		if n == "" {
			continue
		}
		changed = append(changed, n)
		switch effect[o] {
		case effectCreated:
			created = append(created, n)
		case effectDeleted:
			deleted = append(deleted, n)
		}
	}
	return changed, created, deleted
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
