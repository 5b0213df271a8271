package sandbox

import "errors"

// Errors a caller can branch on with [errors.Is].
var (
	// ErrUnavailable is returned (wrapped in an [*UnavailableError]) when the confinement
	// cannot be set up on this machine: no bubblewrap, user namespaces refused, no overlayfs.
	// Nothing has run.
	ErrUnavailable = errors.New("the command sandbox is not available")

	// ErrOutsideWorkspace is returned when the folder asked for is not a folder inside the
	// workspace. Nothing has run.
	ErrOutsideWorkspace = errors.New("the folder is not inside the workspace")
)

// UnavailableError says why the sandbox cannot start and what the user can do. Its Error
// is one sentence meant for the user; it matches [ErrUnavailable] with [errors.Is].
type UnavailableError struct {
	// Reason is the sentence shown to the user.
	Reason string
	// Detail is what the failing step printed, for a log; it may be empty.
	Detail string
}

func (e *UnavailableError) Error() string { return e.Reason }

// Is makes errors.Is(err, ErrUnavailable) true.
func (e *UnavailableError) Is(target error) bool { return target == ErrUnavailable }
