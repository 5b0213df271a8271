package vocab

import (
	"context"
	"errors"
	"fmt"
	"testing"
)

// A failure either client can meet has one code, whichever client wrapped it; any other
// failure is left to the client's own codes.
func TestASharedFailureHasOneCodeWhicheverClientWrappedIt(t *testing.T) {
	wants := map[error]string{
		context.Canceled:                   CodeCanceled,
		ErrModelNotFound:                   CodeModelNotFound,
		&AnswerTooLongError{Limit: 1}:      CodeAnswerTooLong,
		fmt.Errorf("chat: %w", ErrBusy):    CodeBusy,
		errors.New("nothing answers here"): "",
	}
	for err, want := range wants {
		if got := SharedCode(err); got != want {
			t.Errorf("SharedCode(%v) = %q, want %q", err, got, want)
		}
	}
}
