package httpstream

import (
	"context"
	"errors"
	"time"

	"github.com/cenkalti/backoff/v4"
)

// Policy bounds the retries of a request before its first byte.
type Policy struct {
	Attempts    int           // requests in all; below 1 counts as 1
	MaxElapsed  time.Duration // the most waiting between them, in all
	Initial     time.Duration // the first delay; the delays are jittered and grow...
	MaxInterval time.Duration // ...up to this one
}

// Retry is one retry about to happen.
type Retry struct {
	Attempt int           // the attempt about to be made, from 2
	Delay   time.Duration // the wait before it
	Err     error         // why the previous one failed
}

// Do calls send until it returns a stream, fails with a [backoff.Permanent] error, or p
// gives up. retryAfter(err) is the delay a failed attempt's server asked for (0: none); it
// replaces the computed one, and ends the retrying when it would pass p.MaxElapsed.
// onRetry (may be nil) hears of each retry before its wait and stops the retrying by
// returning an error, which Do returns. Cancelling ctx ends a wait at once: Do then
// returns ctx's cause, and closes a stream that had opened.
func Do(ctx context.Context, p Policy, send func() (*Stream, error), retryAfter func(error) time.Duration, onRetry func(Retry) error) (*Stream, error) {
	exp := backoff.NewExponentialBackOff(
		backoff.WithInitialInterval(p.Initial),
		backoff.WithMaxInterval(p.MaxInterval),
		backoff.WithMaxElapsedTime(p.MaxElapsed),
	)
	bo := &serverDelay{inner: exp, maxElapsed: p.MaxElapsed}
	retryCtx, stopRetrying := context.WithCancel(ctx)
	defer stopRetrying()
	// WithContext outermost, so that cancelling ctx ends a backoff sleep at once.
	policy := backoff.WithContext(backoff.WithMaxRetries(bo, uint64(max(p.Attempts, 1)-1)), retryCtx)

	var (
		out       *Stream
		attempt   int
		notifyErr error
		last      error
	)
	op := func() error {
		attempt++
		bo.retryAfter = 0
		s, err := send()
		if err != nil {
			bo.retryAfter = retryAfter(err)
			last = err
			return err
		}
		out = s
		return nil
	}
	notify := func(err error, delay time.Duration) {
		if onRetry == nil || notifyErr != nil {
			return
		}
		if e := onRetry(Retry{Attempt: attempt + 1, Delay: delay, Err: err}); e != nil {
			notifyErr = e
			stopRetrying()
		}
	}
	err := backoff.RetryNotify(op, policy, notify)
	switch {
	case notifyErr != nil:
		return nil, notifyErr
	case ctx.Err() != nil:
		if out != nil {
			out.Close()
		}
		cause := context.Cause(ctx)
		if last != nil && errors.Is(cause, context.DeadlineExceeded) {
			return nil, &GaveUpError{Last: last, Cause: cause}
		}
		return nil, cause
	case err != nil:
		return nil, err
	}
	return out, nil
}

// GaveUpError is a request whose deadline passed while it waited to try again: it reads as
// the last attempt's error (nothing answers, the server is busy) and matches both that error
// and the deadline's cause (context.DeadlineExceeded) with errors.Is and errors.As.
type GaveUpError struct {
	Last  error // the last attempt's error
	Cause error // the context's cause
}

func (e *GaveUpError) Error() string   { return e.Last.Error() }
func (e *GaveUpError) Unwrap() []error { return []error{e.Last, e.Cause} }

// serverDelay is the exponential policy, except that a server's Retry-After replaces the
// computed delay (and stops the retrying when it would pass the elapsed-time bound).
type serverDelay struct {
	inner      *backoff.ExponentialBackOff
	maxElapsed time.Duration
	retryAfter time.Duration
}

func (b *serverDelay) Reset() { b.inner.Reset() }

func (b *serverDelay) NextBackOff() time.Duration {
	next := b.inner.NextBackOff()
	if next == backoff.Stop || b.retryAfter <= 0 {
		return next
	}
	if b.maxElapsed > 0 && b.inner.GetElapsedTime()+b.retryAfter > b.maxElapsed {
		return backoff.Stop
	}
	return b.retryAfter
}
