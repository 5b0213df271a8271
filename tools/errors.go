package tools

import (
	"errors"
	"fmt"
)

// Sentinel errors. Every error a tool returns wraps one of these, so a caller
// can branch with errors.Is while the model reads the full sentence.
var (
	// ErrUnknownTool is returned when a call names a tool that is not registered.
	ErrUnknownTool = errors.New("unknown tool")
	// ErrInvalidArguments is returned when arguments are not JSON, not a JSON
	// object, or do not match the tool's schema; the error is an
	// [*ArgumentsError].
	ErrInvalidArguments = errors.New("invalid arguments")
	// ErrInvalidTool is returned by [NewRegistry] for a tool that cannot be
	// registered (empty or duplicate name, schema that does not compile).
	ErrInvalidTool = errors.New("invalid tool")

	// ErrOutsideWorkspace is returned when a path, or a symbolic link on it,
	// leads outside the workspace.
	ErrOutsideWorkspace = errors.New("outside the workspace")
	// ErrInvalidPath is returned for paths that are empty, too long, or hold
	// characters that are not allowed (NUL, control, look-alike separators).
	ErrInvalidPath = errors.New("invalid path")
	// ErrProtectedPath is returned for a write into .git or the app's data
	// folder, and for any use of the app's database, its lock or its backups,
	// or of its configuration folders.
	ErrProtectedPath = errors.New("protected path")
	// ErrNotFound is returned when the path does not exist.
	ErrNotFound = errors.New("not found")
	// ErrWrongKind is returned when a path exists but has the wrong kind
	// (a folder where a file is expected, or the reverse).
	ErrWrongKind = errors.New("wrong kind of file")
	// ErrSymlink is returned when a write would replace a symbolic link.
	ErrSymlink = errors.New("symbolic link")
	// ErrHardLink is returned for a file that has more than one hard link.
	ErrHardLink = errors.New("hard-linked file")
	// ErrBinaryFile is returned when a text operation meets a binary file.
	ErrBinaryFile = errors.New("binary file")
	// ErrTooLarge is returned when content or a file exceeds a cap.
	ErrTooLarge = errors.New("too large")
	// ErrNoMatch is returned by edit_file when old_string does not occur.
	ErrNoMatch = errors.New("no match")
	// ErrMatchCount is returned by edit_file when old_string occurs a
	// different number of times than expected.
	ErrMatchCount = errors.New("unexpected number of matches")
	// ErrNotEmpty is returned by delete_path for a folder that has entries.
	ErrNotEmpty = errors.New("folder not empty")
	// ErrAddedSince is returned by a call that finds a path to change which the caller did
	// not record before it ran ([WithTouched]): made meanwhile by the user or another program.
	ErrAddedSince = errors.New("path added since the call was checked")
	// ErrUnsaved is returned by a write or an edit of a file whose editor holds changes not
	// saved ([Buffers]): writing it would throw them away.
	ErrUnsaved = errors.New("unsaved changes in the editor")
)

// PathError is the error of a workspace tool about one path. Its message is
// the whole sentence for the model; Err is one of the sentinels above.
type PathError struct {
	Path string // workspace-relative path as the caller gave it
	Err  error  // sentinel, for errors.Is
	Msg  string // the sentence: what happened and what to do
}

func (e *PathError) Error() string { return e.Msg }
func (e *PathError) Unwrap() error { return e.Err }

func pathErrorf(kind error, path, format string, args ...any) *PathError {
	return &PathError{Path: path, Err: kind, Msg: fmt.Sprintf(format, args...)}
}

// Violation is one way the arguments of a call break the tool's schema.
type Violation struct {
	Pointer string `json:"pointer"` // JSON pointer into the arguments ("" is the whole object)
	Message string `json:"message"`
}

// ArgumentsError lists every violation of one call's arguments.
type ArgumentsError struct {
	Tool       string
	Violations []Violation
	Cause      error  // JSON syntax error, when the arguments did not parse
	NotObject  string // the kind of JSON value sent instead of an object ("an array", "a string"…)
	Expected   string // what the object holds, e.g. "path and content"; "" for a tool without parameters
}

func (e *ArgumentsError) Error() string {
	want := "a JSON object"
	if e.Expected != "" {
		want += " with " + e.Expected
	}
	switch {
	case e.Cause != nil:
		return fmt.Sprintf("the arguments of %s are not valid JSON (%v); send %s", e.Tool, e.Cause, want)
	case e.NotObject != "":
		return fmt.Sprintf("the arguments of %s must be %s, not %s; call it again with such an object", e.Tool, want, e.NotObject)
	}
	msg := fmt.Sprintf("the arguments of %s do not match its schema; fix these and call it again:", e.Tool)
	for _, v := range e.Violations {
		msg += fmt.Sprintf("\n- at %q: %s", v.Pointer, v.Message)
	}
	return msg
}

func (e *ArgumentsError) Unwrap() error { return ErrInvalidArguments }

// cancelledError is the error of work whose context ended: its message says which work, in
// words a person reads (the context's own "context canceled" is Go's wording, not theirs);
// the context's error stays matchable with errors.Is.
type cancelledError struct {
	msg string
	err error
}

func (e *cancelledError) Error() string { return e.msg }
func (e *cancelledError) Unwrap() error { return e.err }

// cancelledf is the [cancelledError] of err, the error of the context that ended.
func cancelledf(err error, format string, args ...any) error {
	return &cancelledError{msg: fmt.Sprintf(format, args...), err: err}
}
