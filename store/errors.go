package store

import (
	"errors"
	"fmt"
	"io/fs"
	"syscall"
)

// Sentinel errors; the concrete errors below match them with errors.Is and carry the details.
var (
	// ErrLocked is returned by Open when another process holds the database (another
	// Prototyper is running) and the lock was not released within Options.LockTimeout.
	ErrLocked = errors.New("Prototyper is already running")

	// ErrNewerSchema is returned by Open for a file written by a newer Prototyper.
	ErrNewerSchema = errors.New("database written by a newer Prototyper")

	// ErrNeedsMigration is returned by a read-only Open of a file with an older schema, which
	// only a writable Open may migrate.
	ErrNeedsMigration = errors.New("database needs upgrading")

	// ErrNoDatabase is returned by a read-only Open when the file does not exist yet.
	ErrNoDatabase = errors.New("no database yet")

	// ErrNotFound is returned when a chat, message, tool call or run does not exist.
	ErrNotFound = errors.New("not found")

	// ErrWrite is matched by every error from a write that did not reach the disk (full disk,
	// read-only file system, I/O error). Nothing of that write was kept.
	ErrWrite = errors.New("could not save")
)

// LockedError is the error of a database held by another process.
type LockedError struct{ Path string }

func (e *LockedError) Error() string {
	return fmt.Sprintf("Prototyper is already running (database locked: %s)", e.Path)
}

// Is matches ErrLocked.
func (e *LockedError) Is(target error) bool { return target == ErrLocked }

// SchemaError is the error of a file whose schema version this build cannot use.
type SchemaError struct {
	Path          string
	FileVersion   uint64
	ThisVersion   uint64
	needsMigrated bool
}

func (e *SchemaError) Error() string {
	if e.needsMigrated {
		return fmt.Sprintf("the database %s has schema %d and must be upgraded to %d: start Prototyper once (not read-only) to upgrade it",
			e.Path, e.FileVersion, e.ThisVersion)
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
