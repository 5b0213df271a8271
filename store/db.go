package store

import (
	"crypto/rand"
	"encoding/binary"
	"encoding/hex"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sync"
	"time"

	bolt "go.etcd.io/bbolt"
	berrors "go.etcd.io/bbolt/errors"
)

// DefaultLockTimeout is how long Open waits for another process to release the file.
const DefaultLockTimeout = time.Second

// DefaultSaveInterval is the longest a streaming message goes without being saved.
const DefaultSaveInterval = time.Second

// Options tune Open. The zero value is what the app uses.
type Options struct {
	// LockTimeout bounds the wait for another process's lock (default DefaultLockTimeout).
	LockTimeout time.Duration
	// ReadOnly opens for reading with a shared lock: nothing is migrated or written, and the
	// file must exist (ErrNoDatabase otherwise). Since the lock proves that no process is
	// writing, the runs left live are read as interrupted (see [DB.Recovered]).
	ReadOnly bool
	// SaveInterval is a MessageSaver's longest gap between saves while streaming
	// (default DefaultSaveInterval).
	SaveInterval time.Duration
	// Now is the clock (default time.Now); tests inject their own.
	Now func() time.Time
	// CheckSettings, when set, judges settings about to be saved after [Settings.Validate]:
	// the rules of the rooms that own a field (a server's address, the MCP servers'
	// configuration), which the store does not import. It returns an [*InvalidSettingError]
	// for a value no run could use; nothing is saved then.
	CheckSettings func(Settings) error
}

// DB is an open store. Its methods are safe for concurrent use.
type DB struct {
	bolt      *bolt.DB
	path      string
	opts      Options
	recovered []Run
	streams   *streamJournal // nil when read-only

	// seqs holds, per chat, the highest message sequence this process handed out: to a
	// message appended (committed or not) or to a streaming message that has its id before
	// its first write ([DB.NewMessageSaver]). An append never takes a sequence at or below
	// it, so a reserved id is never given twice; a transaction rolled back leaves a gap.
	seqMu sync.Mutex
	seqs  map[string]uint64
}

// Bucket names; see the package documentation for the layout.
var (
	bucketMeta           = []byte("meta")
	bucketChats          = []byte("chats")
	bucketChatsByUpdated = []byte("chatsByUpdated")
	bucketChat           = []byte("chat")
	bucketRuns           = []byte("runs")
	bucketLiveRuns       = []byte("liveRuns")
	bucketSettings       = []byte("settings")

	// sub-buckets of one chat
	bucketMessages  = []byte("messages")
	bucketTools     = []byte("tools")
	bucketToolIndex = []byte("toolIndex")
	bucketChatRuns  = []byte("runs")

	keySchema   = []byte("schema")
	keySettings = []byte("settings")
)

// Open opens (creating it and its folder if needed) the database at path. It waits at most
// opts.LockTimeout for another process to let go of the file and then returns a
// [*LockedError]. An older file is backed up and migrated; a newer one is refused
// ([*SchemaError]); a damaged one too ([*DamagedError]). Runs left live by a process that
// died are marked interrupted.
func Open(path string, opts Options) (*DB, error) {
	if opts.LockTimeout <= 0 {
		opts.LockTimeout = DefaultLockTimeout
	}
	if opts.SaveInterval <= 0 {
		opts.SaveInterval = DefaultSaveInterval
	}
	if opts.Now == nil {
		opts.Now = time.Now
	}
	abs, err := filepath.Abs(path)
	if err != nil {
		return nil, fmt.Errorf("database path %q: %w", path, err)
	}
	if opts.ReadOnly {
		// An empty file is one a process was killed in right after creating it: nothing yet.
		if info, err := os.Stat(abs); errors.Is(err, fs.ErrNotExist) || (err == nil && info.Size() == 0) {
			return nil, fmt.Errorf("%w at %s: Prototyper creates it when it first starts", ErrNoDatabase, abs)
		}
	} else if err := os.MkdirAll(filepath.Dir(abs), 0o700); err != nil {
		return nil, fmt.Errorf("cannot create the database's folder: %w: pass --db with a writable location", err)
	}
	var bdb *bolt.DB
	var file *os.File
	err = guardBolt(func() (err error) {
		bdb, err = bolt.Open(abs, 0o600, &bolt.Options{Timeout: opts.LockTimeout, ReadOnly: opts.ReadOnly,
			OpenFile: func(name string, flag int, perm os.FileMode) (*os.File, error) {
				f, err := os.OpenFile(name, flag, perm)
				file = f
				return f, err
			}})
		return err
	})
	if errors.Is(err, berrors.ErrTimeout) {
		return nil, &LockedError{Path: abs}
	}
	var ce *corruptError
	if errors.As(err, &ce) && file != nil {
		// bolt.Open panicked on a damaged page (the freelist of a truncated file) and left
		// its file open, locked and mapped: let go of the lock, which the mapping would keep.
		releaseLock(file)
		_ = file.Close()
	}
	if err != nil {
		return nil, openError(abs, err)
	}
	db := &DB{bolt: bdb, path: abs, opts: opts}
	if !opts.ReadOnly {
		db.streams = &streamJournal{path: StreamJournalPath(abs), limit: maxJournal}
	}
	if err := db.prepare(); err != nil {
		_ = bdb.Close()
		return nil, err
	}
	return db, nil
}

// prepare checks that the file is whole and of a schema this build reads, migrates it,
// puts back the streamed text a dead process journaled and recovers the runs it left live.
func (db *DB) prepare() error {
	if err := db.view(func(tx *bolt.Tx) error { return checkSize(db.path, tx) }); err != nil {
		return err
	}
	version, empty, err := db.schemaVersion()
	if err != nil {
		return err
	}
	current := CurrentSchema()
	switch {
	case version == 0 && !empty:
		// buckets but no schema: not something this program wrote, or its meta is lost
		return damaged(db.path, &corruptError{what: "buckets without a schema version"})
	case version == 0 && db.opts.ReadOnly:
		// a file a process was killed in before it wrote anything: no chats yet
		return fmt.Errorf("%w at %s: Prototyper creates it when it first starts", ErrNoDatabase, db.path)
	case version > current:
		return &SchemaError{Path: db.path, FileVersion: version, ThisVersion: current, Backup: findBackup(db.path, current)}
	case version < current && db.opts.ReadOnly:
		return &SchemaError{Path: db.path, FileVersion: version, ThisVersion: current, needsMigrated: true}
	case version < current:
		if err := db.migrate(version); err != nil {
			return err
		}
	}
	if err := db.checkBuckets(); err != nil {
		return err
	}
	if db.opts.ReadOnly {
		// The shared lock this handle holds proves that no process is writing: the runs
		// still marked live belong to a process that died. They are reported as a writable
		// Open would mark them, without writing.
		live, err := db.runsIn(func(tx *bolt.Tx) (*bolt.Bucket, error) { return tx.Bucket(bucketLiveRuns), nil })
		db.recovered = live
		return err
	}
	// before anything reads a message
	if err := db.replayStreams(); err != nil {
		return err
	}
	if err := db.recoverLiveRuns(); err != nil {
		return err
	}
	// no run outlives the process that started it: what waited in a queue goes back to the box
	if err := db.giveBackAllQueued(); err != nil {
		return err
	}
	// Search reads the messages of a chat whose index is behind, so a rebuild that fails
	// (a full disk) costs speed, never a message or a result.
	_ = db.reindex()
	return nil
}

// Close releases the file and its lock. The stream journal is removed with it unless a
// [MessageSaver] was left unended: the next Open puts back what it streamed.
func (db *DB) Close() error {
	var jerr error
	if db.streams != nil {
		jerr = db.streams.close()
	}
	return errors.Join(db.bolt.Close(), jerr)
}

// Path is the database file's absolute path.
func (db *DB) Path() string { return db.path }

// Recovered lists the runs this Open found live and marked interrupted (or paused, for a run
// that was waiting on an approval): the app can tell the user what the crash cut short. A
// read-only Open marks nothing on disk but reads these runs so marked all the same.
func (db *DB) Recovered() []Run { return append([]Run(nil), db.recovered...) }

// Check runs bbolt's consistency check over the whole file and returns every problem found,
// joined, or nil.
func (db *DB) Check() error {
	var errs []error
	err := db.bolt.View(func(tx *bolt.Tx) error {
		for e := range tx.Check() {
			errs = append(errs, e)
		}
		return nil
	})
	return errors.Join(append(errs, err)...)
}

// update runs fn in a write transaction. An error from fn comes back as it is; an error of
// the commit itself (the disk) comes back as a [*WriteError] naming op; damage found on the
// way (bbolt panics included) as a [*DamagedError].
func (db *DB) update(op string, fn func(tx *bolt.Tx) error) error {
	var fnErr error
	err := guardBolt(func() error {
		return db.bolt.Update(func(tx *bolt.Tx) error {
			fnErr = fn(tx)
			return fnErr
		})
	})
	var ce *corruptError
	if err != nil && fnErr == nil && !errors.As(err, &ce) {
		return &WriteError{Op: op, Path: db.path, Err: err}
	}
	return asDamage(db.path, err)
}

// view runs fn in a read transaction; damage found on the way (bbolt panics included) comes
// back as a [*DamagedError].
func (db *DB) view(fn func(tx *bolt.Tx) error) error {
	return asDamage(db.path, guardBolt(func() error { return db.bolt.View(fn) }))
}

func (db *DB) now() time.Time { return db.opts.Now() }

// newID returns a fresh id that sorts by creation time: 6 bytes of milliseconds, 5 random.
func newID(now time.Time) string {
	var b [11]byte
	ms := uint64(now.UnixMilli())
	for i := 5; i >= 0; i-- {
		b[i] = byte(ms)
		ms >>= 8
	}
	if _, err := rand.Read(b[6:]); err != nil {
		panic(err) // crypto/rand never fails on supported systems
	}
	return hex.EncodeToString(b[:])
}

func seqKey(seq uint64) []byte {
	k := make([]byte, 8)
	binary.BigEndian.PutUint64(k, seq)
	return k
}

// updatedKey is the chatsByUpdated key of a chat: newest last in bbolt's byte order.
func updatedKey(t time.Time, chatID string) []byte {
	k := make([]byte, 8, 8+len(chatID))
	binary.BigEndian.PutUint64(k, uint64(t.UnixNano()))
	return append(k, chatID...)
}
