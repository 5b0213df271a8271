package cli

import (
	"errors"
	"fmt"
	"io"
	"strings"

	"prototyper/store"
)

// errorLine is the one line a command prints for err, in the terminal's words
// ([terminalWords]): joined errors are said in turn, once each, a save that failed for one cause (a full disk) is said once however many writes it
// failed, and what came from a model or a server is sanitized for the terminal.
func errorLine(err error) string {
	var parts []string
	var writes []*store.WriteError
	seen := map[string]bool{}
	for _, e := range leafErrors(err) {
		var we *store.WriteError
		if errors.As(e, &we) {
			if sameWriteFailure(writes, we) {
				continue
			}
			writes = append(writes, we)
		}
		msg := strings.Join(strings.Fields(Sanitize(terminalWords(e))), " ")
		if msg != "" && !seen[msg] {
			seen[msg] = true
			parts = append(parts, msg)
		}
	}
	return strings.Join(parts, "; ")
}

// sameWriteFailure reports whether a failed save says what one of earlier already said: the
// same file, the same system error.
func sameWriteFailure(earlier []*store.WriteError, we *store.WriteError) bool {
	for _, e := range earlier {
		if e.Path == we.Path && rootCause(e.Err).Error() == rootCause(we.Err).Error() {
			return true
		}
	}
	return false
}

func rootCause(err error) error {
	for {
		next := errors.Unwrap(err)
		if next == nil {
			return err
		}
		err = next
	}
}

// leafErrors flattens the trees errors.Join makes into the errors joined. An error that
// wraps several with words of its own (fmt.Errorf with two %w) is kept whole.
func leafErrors(err error) []error {
	if err == nil {
		return nil
	}
	if j, ok := err.(interface{ Unwrap() []error }); ok {
		joined := j.Unwrap()
		msgs := make([]string, len(joined))
		for i, e := range joined {
			msgs[i] = e.Error()
		}
		if err.Error() == strings.Join(msgs, "\n") {
			var out []error
			for _, e := range joined {
				out = append(out, leafErrors(e)...)
			}
			return out
		}
	}
	return []error{err}
}

// printError prints err as the command's one line on w.
func printError(w io.Writer, cmd string, err error) {
	fmt.Fprintf(w, "prototyper %s: %s\n", cmd, errorLine(err))
}
