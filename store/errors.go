package store

import (
	"errors"
	"fmt"
	"io/fs"
	"syscall"
)

// Each sentinel error stands beside the typed error that matches it with errors.Is and
// carries the details.

// ErrLocked is returned by Open when another process holds the database (another Prototyper
// is running) and the lock was not released within Options.LockTimeout. A [*LockedError].
var ErrLocked = errors.New("Prototyper is already running")

// LockedError is the error of a database held by another process.
type LockedError struct{ Path string }

func (e *LockedError) Error() string {
	return "Prototyper is already running (database locked: " + e.Path + "): close it first (its window, or the command that uses it), or name another database with --db"
}

// Is matches ErrLocked.
func (e *LockedError) Is(target error) bool { return target == ErrLocked }

// ErrNoDatabase is returned by a read-only Open when the file does not exist yet.
var ErrNoDatabase = errors.New("no database yet")

// ErrNewerSchema is returned by Open for a file written by a newer Prototyper. A
// [*SchemaError].
var ErrNewerSchema = errors.New("database written by a newer Prototyper")

// ErrNeedsMigration is returned by a read-only Open of a file with an older schema, which
// only a writable Open may migrate. A [*SchemaError].
var ErrNeedsMigration = errors.New("database needs upgrading")

// SchemaError is the error of a file whose schema version this build cannot use.
type SchemaError struct {
	Path        string
	FileVersion uint64
	ThisVersion uint64
	// Backup is, for a newer file, the copy the newer Prototyper kept before it upgraded the
	// file, when that copy is one this build can read ("" otherwise).
	Backup        string
	needsMigrated bool
}

func (e *SchemaError) Error() string {
	if e.needsMigrated {
		return fmt.Sprintf("the database %s has schema %d and must be upgraded to %d: start Prototyper once (not read-only) to upgrade it",
			e.Path, e.FileVersion, e.ThisVersion)
	}
	if e.Backup != "" {
		return fmt.Sprintf("the database %s was written by a newer Prototyper (schema %d; this one reads up to %d): update Prototyper, or go back to the copy from before that upgrade at %s (move the file away and rename the copy to %s; chats since the upgrade are only in the newer file)",
			e.Path, e.FileVersion, e.ThisVersion, e.Backup, e.Path)
	}
	return fmt.Sprintf("the database %s was written by a newer Prototyper (schema %d; this one reads up to %d): update Prototyper, or pass --db with another file",
		e.Path, e.FileVersion, e.ThisVersion)
}

// Is matches ErrNewerSchema or ErrNeedsMigration.
func (e *SchemaError) Is(target error) bool {
	if e.needsMigrated {
		return target == ErrNeedsMigration
	}
	return target == ErrNewerSchema
}

// ErrNotFound is returned when a chat, message, tool call or run does not exist. A
// [*NotFoundError].
var ErrNotFound = errors.New("not found")

// NotFoundError says which thing is missing.
type NotFoundError struct {
	Kind string // chat, message, tool call, run
	ID   string
}

func (e *NotFoundError) Error() string {
	if e.Kind == "chat" {
		return fmt.Sprintf("no chat %q in the store: `prototyper chats list` shows the ids", e.ID)
	}
	return fmt.Sprintf("no %s %q in the store", e.Kind, e.ID)
}

// Is matches ErrNotFound.
func (e *NotFoundError) Is(target error) bool { return target == ErrNotFound }

// ErrWrite is matched by every error from a write that did not reach the disk (full disk,
// read-only file system, I/O error), a [*WriteError]. Nothing of that write was kept.
var ErrWrite = errors.New("could not save")

// WriteError is a write that failed on its way to disk. Unwrap gives the system's error
// (syscall.ENOSPC for a full disk, for example).
type WriteError struct {
	Op   string // what was being saved, e.g. "append message"
	Path string
	Err  error
}

func (e *WriteError) Error() string {
	cause := e.Err
	var pe *fs.PathError
	if errors.As(cause, &pe) && pe.Path == e.Path {
		cause = pe.Err // the path is said once
	}
	return fmt.Sprintf("could not save (%s) to %s: %v%s", e.Op, e.Path, cause, hint(e.Err))
}

func (e *WriteError) Unwrap() error { return e.Err }

// Is matches ErrWrite.
func (e *WriteError) Is(target error) bool { return target == ErrWrite }

// ErrDamaged is matched by the error of a file that cannot be read as a Prototyper database:
// truncated, overwritten, or a bbolt file with buckets but no schema. It is returned by Open,
// or by any read that runs into a damaged page (bbolt's own panics on such pages are
// recovered into it). The [*DamagedError] names a backup that still opens.
var ErrDamaged = errors.New("the chat database is damaged")

// DamagedError is the error of a file that cannot be read as a Prototyper database. Its
// message is the one sentence a user reads: what is wrong and what to do, naming the backup
// an upgrade kept when there is one that still opens.
type DamagedError struct {
	Path string
	// Backup is the newest copy kept before an upgrade (PATH.schemaN.bak) that opens and that
	// this build can read, or "".
	Backup string
	// Err is what was found wrong (bbolt's error or panic, a value that does not decode), for
	// logs; the user is not shown it.
	Err error
}

func (e *DamagedError) Error() string {
	if e.Backup != "" {
		return fmt.Sprintf("the chat database %s is damaged and cannot be read: a copy from before the last upgrade is at %s; move the damaged file away and rename the copy to %s, or move the damaged file away to start with no chats",
			e.Path, e.Backup, e.Path)
	}
	return fmt.Sprintf("the chat database %s is damaged and cannot be read: move it away to start with no chats, or pass --db with another file", e.Path)
}

func (e *DamagedError) Unwrap() error { return e.Err }

// Is matches ErrDamaged.
func (e *DamagedError) Is(target error) bool { return target == ErrDamaged }

// ErrDuplicateToolCall is returned by PutToolCall and CompleteToolCall when a chat already
// holds a record with that tool-call id for another call, or one that has already run: the
// new call is not recorded, and the record that was there is left as it was. A
// [*DuplicateToolCallError].
var ErrDuplicateToolCall = errors.New("tool-call id already recorded")

// DuplicateToolCallError is a tool-call record refused because its id is taken in the chat.
type DuplicateToolCallError struct {
	ChatID, ID string
}

func (e *DuplicateToolCallError) Error() string {
	return fmt.Sprintf("tool call %q is already recorded in chat %s for another call; this one was not recorded", e.ID, e.ChatID)
}

// Is matches ErrDuplicateToolCall.
func (e *DuplicateToolCallError) Is(target error) bool { return target == ErrDuplicateToolCall }

// hint says what the user can do about a system error.
func hint(err error) string {
	switch {
	case errors.Is(err, syscall.ENOSPC), errors.Is(err, syscall.EFBIG), errors.Is(err, syscall.EDQUOT):
		return ": free some disk space, then try again"
	case errors.Is(err, syscall.EROFS), errors.Is(err, syscall.EACCES), errors.Is(err, syscall.EPERM):
		return ": make the database's folder writable, or pass --db with another file"
	case errors.Is(err, syscall.EIO):
		return ": the disk reported an I/O error; copy the file somewhere safe"
	}
	return ""
}

// errReservedTaken is a streaming message's first save finding its reserved id taken: only a
// second process writing the same file could do it, which the file's lock refuses.
var errReservedTaken = errors.New("the id reserved for a streaming message is taken")
