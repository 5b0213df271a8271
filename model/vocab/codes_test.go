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
	for _, tc := range []struct {
		err  error
		want string
	}{
		{context.Canceled, CodeCanceled},
		{ErrModelNotFound, CodeModelNotFound},
		{&AnswerTooLongError{Limit: 1}, CodeAnswerTooLong},
		{fmt.Errorf("chat: %w", ErrIdleTimeout), CodeIdleTimeout},
		{errors.New("the server is busy"), ""},
	} {
		if got := SharedCode(tc.err); got != tc.want {
			t.Errorf("SharedCode(%v) = %q, want %q", tc.err, got, tc.want)
		}
	}
}
