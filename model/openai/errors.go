package openai

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"time"

	"prototyper/model/internal/httpstream"
	"prototyper/model/vocab"
)

// Sentinel errors, for errors.Is; the typed errors below match them and carry the details.
// Those a model server of either kind can meet are package vocab's ([vocab.ErrModelNotFound],
// [vocab.ErrCapability], [vocab.ErrUnauthorized], the stream and timeout errors), so that one
// errors.Is recognises a missing model or a timeout whichever provider answered.
var (
	// ErrUnreachable: nothing answers at the base URL (connection refused), after the retries.
	ErrUnreachable = errors.New("the model server does not answer")
	// ErrNotOpenAI: the address does not serve the OpenAI-compatible API (a web page, or a
	// 404 that is not an API error).
	ErrNotOpenAI = errors.New("not an OpenAI-compatible API")
)

// baseURLAdvice is how a user changes the server's address.
const baseURLAdvice = "check the base URL (--base-url, or the server URL in the settings), e.g. http://127.0.0.1:8000/v1"

// UnreachableError says that nothing answers at URL.
type UnreachableError struct {
	URL string
	Err error
}

func (e *UnreachableError) Error() string {
	return fmt.Sprintf("nothing answers at %s — start the model server, or %s", e.URL, baseURLAdvice)
}
func (e *UnreachableError) Unwrap() error        { return e.Err }
func (e *UnreachableError) Is(target error) bool { return target == ErrUnreachable }

// StatusError is an HTTP error answer (status 400 or more) with the server's message.
type StatusError struct {
	StatusCode int
	Message    string // the API error's message, or the start of the body
	URL        string
	Path       string
	Model      string
	// KeySent says that a key was sent; KeyEnv names the environment variable it came from.
	KeySent bool
	KeyEnv  string
	// APIError is true when the body was an API error object (not a web page or plain text).
	APIError   bool
	RetryAfter time.Duration
}

func (e *StatusError) Error() string {
	msg := httpstream.StatusText(e.StatusCode, e.Message)
	switch {
	case e.Is(vocab.ErrUnauthorized) && !e.KeySent:
		return fmt.Sprintf("the server at %s wants an API key (HTTP %d: %s) — put it in an environment variable and name it with --api-key-env NAME or the API key variable in the settings", e.URL, e.StatusCode, msg)
	case e.Is(vocab.ErrUnauthorized) && e.KeyEnv != "":
		return fmt.Sprintf("the server at %s refused the key in $%s (HTTP %d: %s) — check the key that variable holds", e.URL, e.KeyEnv, e.StatusCode, msg)
	case e.Is(vocab.ErrUnauthorized):
		return fmt.Sprintf("the server at %s refused the key (HTTP %d: %s) — check the key", e.URL, e.StatusCode, msg)
	case e.Is(vocab.ErrModelNotFound) && e.Model != "":
		return fmt.Sprintf("the server at %s does not serve model %q (%s) — pick one it lists (`prototyper models`)", e.URL, e.Model, msg)
	case e.Is(vocab.ErrCapability):
		return fmt.Sprintf("the server refused the request: %s — pick a model that has this capability or turn the feature off (e.g. --think off)", msg)
	case e.Is(vocab.ErrBusy):
		return fmt.Sprintf("the server at %s is busy (HTTP %d: %s) — wait a moment and try again", e.URL, e.StatusCode, msg)
	case e.StatusCode >= 500:
		return fmt.Sprintf("the server at %s failed (HTTP %d: %s) — try again; if it repeats, check the server's log", e.URL, e.StatusCode, msg)
	}
	return fmt.Sprintf("the server at %s refused the request (HTTP %d: %s) — check the model and the settings, and the server's log for the reason", e.URL, e.StatusCode, msg)
}

// Is matches vocab.ErrModelNotFound (404 with an API error: a 404 page is another server) and
// vocab.ErrBusy (503, 429); vocab.ErrUnauthorized (401, 403) and vocab.ErrCapability (400 "does not
// support") by the rules both clients share.
func (e *StatusError) Is(target error) bool {
	switch target {
	case vocab.ErrModelNotFound:
		return e.StatusCode == http.StatusNotFound && e.APIError
	case vocab.ErrBusy:
		return e.StatusCode == http.StatusServiceUnavailable || e.StatusCode == http.StatusTooManyRequests
	case vocab.ErrUnauthorized:
		return httpstream.Unauthorized(e.StatusCode)
	case vocab.ErrCapability:
		return httpstream.Unsupported(e.StatusCode, e.Message)
	}
	return false
}

// NotOpenAIError says that URL answered in a way the OpenAI-compatible API never does.
type NotOpenAIError struct {
	URL, Path  string
	StatusCode int
	WebPage    bool
}

func (e *NotOpenAIError) Error() string {
	if e.WebPage {
		return fmt.Sprintf("the server at %s answered with a web page, not the OpenAI-compatible API — %s", e.URL, baseURLAdvice)
	}
	return fmt.Sprintf("the server at %s does not know the OpenAI-compatible API (HTTP %d for %s) — %s", e.URL, e.StatusCode, e.Path, baseURLAdvice)
}
func (e *NotOpenAIError) Is(target error) bool { return target == ErrNotOpenAI }

// StreamError is an error event inside a stream.
type StreamError struct{ Message string }

func (e *StreamError) Error() string {
	return fmt.Sprintf("the model server reported an error mid-answer: %s — try again; if it repeats, check the server's log", e.Message)
}
func (e *StreamError) Is(target error) bool { return target == vocab.ErrStream }

// IncompleteStreamError is a stream that ended before [DONE] or a finish_reason; its tool
// calls were not returned.
type IncompleteStreamError struct {
	Events int   // data events received
	Err    error // the read error; nil for a clean EOF
}

func (e *IncompleteStreamError) Error() string {
	return fmt.Sprintf("the model server's answer stopped before it was complete (after %d events; %s) — nothing from it was run; try again",
		e.Events, closedBecause(e.Err))
}

// closedBecause says why a stream stopped: err, or a plain close.
func closedBecause(err error) string {
	if err == nil {
		return "the connection closed"
	}
	return err.Error()
}
func (e *IncompleteStreamError) Unwrap() error        { return e.Err }
func (e *IncompleteStreamError) Is(target error) bool { return target == vocab.ErrIncompleteStream }

// MalformedError is an event whose data is not the JSON expected, or a line too long.
type MalformedError struct {
	Text    string // the start of the data
	Err     error
	TooLong int // the limit in bytes, when the line was too long
}

func (e *MalformedError) Error() string {
	if e.TooLong > 0 {
		return fmt.Sprintf("the server sent a line longer than %d MiB, more than a chat answer holds — %s", e.TooLong>>20, baseURLAdvice)
	}
	return fmt.Sprintf("the server sent malformed JSON (%v; starts %q) — %s", e.Err, e.Text, baseURLAdvice)
}
func (e *MalformedError) Unwrap() error { return e.Err }
func (e *MalformedError) Is(target error) bool {
	return (target == vocab.ErrMalformedLine && e.TooLong == 0) || (target == vocab.ErrLineTooLong && e.TooLong > 0)
}

// TimeoutError is a first-byte or idle timeout.
type TimeoutError struct {
	FirstByte bool
	After     time.Duration
	URL, Path string
}

func (e *TimeoutError) Error() string {
	switch {
	case e.FirstByte && e.Path != chatPath:
		return fmt.Sprintf("the server at %s did not answer within %s — check that it is running and not stuck, or that the base URL is right", e.URL, e.After)
	case e.FirstByte:
		return fmt.Sprintf("the server at %s sent nothing for %s (a model can be slow to load) — %s", e.URL, e.After, vocab.FirstByteAdvice)
	}
	return fmt.Sprintf("the server at %s sent nothing new for %s mid-answer — try again; if it repeats, check the server's log", e.URL, e.After)
}

// Is matches what either client's timeout matches: vocab.ErrFirstByteTimeout or
// vocab.ErrIdleTimeout, and context.DeadlineExceeded.
func (e *TimeoutError) Is(target error) bool {
	return vocab.TimeoutIs(e.FirstByte, target)
}

// refused is the error of a request that nothing answered: the connection was refused.
func (c *Client) refused(err error) error { return &UnreachableError{URL: c.URL(), Err: err} }

// networkError is the error of a network failure other than a refused connection, before
// any answer.
func (c *Client) networkError(err error) error {
	return &httpstream.NetworkError{Server: "the server", URL: c.URL(), Check: "it is up and the base URL is right", Err: err}
}

// Code names the kind of err for the `error` event, in the codes both clients share
// ([vocab.CodeNotRunning] and the others, [vocab.CodeNotOpenAI] among them).
func Code(err error) string {
	var se *StatusError
	var ne *httpstream.NetworkError
	var re *httpstream.RedirectError
	if code := vocab.SharedCode(err); code != "" {
		return code
	}
	switch {
	case err == nil:
		return ""
	case errors.Is(err, ErrUnreachable):
		return vocab.CodeNotRunning
	case errors.Is(err, ErrNotOpenAI):
		return vocab.CodeNotOpenAI
	case errors.As(err, &se):
		return vocab.CodeHTTPError
	case errors.As(err, &ne):
		return vocab.CodeNetwork
	case errors.As(err, &re):
		return vocab.CodeRedirected
	}
	return vocab.CodeUnknown
}

// Retryable reports whether the same request may succeed if tried again: the server did
// not answer, was busy or failing (5xx, 429), timed out, broke or failed the stream.
func Retryable(err error) bool {
	var se *StatusError
	var ne *httpstream.NetworkError
	switch {
	case err == nil, errors.Is(err, context.Canceled):
		return false
	case errors.As(err, &se):
		return httpstream.RetryableStatus(se.StatusCode)
	case errors.Is(err, ErrUnreachable), errors.Is(err, vocab.ErrIncompleteStream), errors.Is(err, vocab.ErrStream),
		errors.Is(err, vocab.ErrFirstByteTimeout), errors.Is(err, vocab.ErrIdleTimeout):
		return true
	}
	return errors.As(err, &ne)
}
