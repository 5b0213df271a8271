package ollama

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"strings"
	"time"

	"prototyper/model/internal/httpstream"
	"prototyper/model/vocab"
)

// Each sentinel error, for errors.Is, stands beside the typed error that is returned, which
// matches it and carries the details.

// ErrNotOllama: the server at the address is not Ollama (it answered with a web page, or a
// 404 that is not Ollama's {"error":…}). A *NotOllamaError.
var ErrNotOllama = errors.New("not an Ollama server")

// NotOllamaError says that the server at URL answered in a way Ollama never does.
type NotOllamaError struct {
	URL        string
	Path       string // the API path asked, e.g. /api/chat
	StatusCode int
	// WebPage is true when the answer was an HTML page.
	WebPage bool
}

func (e *NotOllamaError) Error() string {
	if e.WebPage {
		return fmt.Sprintf("the server at %s answered with a web page, not Ollama's API: check the address (--ollama, OLLAMA_HOST or the Ollama URL in the settings)", e.URL)
	}
	return fmt.Sprintf("the server at %s does not know Ollama's API (HTTP %d for %s): check the address (--ollama, OLLAMA_HOST or the Ollama URL in the settings)", e.URL, e.StatusCode, e.Path)
}
func (e *NotOllamaError) Is(target error) bool { return target == ErrNotOllama }

// ErrNotRunning: nothing answers at the server's address (connection refused), after the
// retries. Returned as a *NotRunningError.
var ErrNotRunning = errors.New("Ollama is not running")

// NotRunningError says that nothing answers at URL.
type NotRunningError struct {
	URL string
	Err error // the dial error
}

func (e *NotRunningError) Error() string {
	return fmt.Sprintf("Ollama is not running at %s — start it with `ollama serve` (or point Prototyper at a running one: the Ollama address in the settings, or --ollama on the command line)", e.URL)
}
func (e *NotRunningError) Unwrap() error        { return e.Err }
func (e *NotRunningError) Is(target error) bool { return target == ErrNotRunning }

// A *StatusError matches [vocab.ErrBusy] (HTTP 503), [vocab.ErrModelNotFound] (HTTP 404),
// [vocab.ErrCapability] (HTTP 400 "… does not support …") and [vocab.ErrUnauthorized] (HTTP
// 401 or 403).

// StatusError is an HTTP error answer (status 400 or more) with the server's message.
type StatusError struct {
	StatusCode int
	// Message is the server's {"error":…} text, or the body when it is not JSON.
	Message string
	URL     string
	// Model is the model the request named, if any.
	Model string
	// RetryAfter is the Retry-After header's delay; 0 when absent.
	RetryAfter time.Duration
	// TokenSent says that the request carried an Authorization header.
	TokenSent bool
}

// Is matches vocab.ErrModelNotFound (404), vocab.ErrCapability (400 "does not support"), vocab.ErrBusy (503)
// and vocab.ErrUnauthorized (401, 403).
func (e *StatusError) Is(target error) bool {
	switch target {
	case vocab.ErrUnauthorized:
		return httpstream.Unauthorized(e.StatusCode)
	case vocab.ErrModelNotFound:
		return e.StatusCode == http.StatusNotFound
	case vocab.ErrCapability:
		return httpstream.Unsupported(e.StatusCode, e.Message)
	case vocab.ErrBusy:
		return e.StatusCode == http.StatusServiceUnavailable
	}
	return false
}

func (e *StatusError) Error() string {
	msg := httpstream.StatusText(e.StatusCode, e.Message)
	switch {
	case e.Is(vocab.ErrUnauthorized) && !e.TokenSent:
		return fmt.Sprintf("the server at %s wants a token (HTTP %d) — put it in an environment variable and name it with --api-key-env NAME or the API key variable in the settings", e.URL, e.StatusCode)
	case e.Is(vocab.ErrUnauthorized):
		return fmt.Sprintf("the server at %s refused the token (HTTP %d) — check the key in the variable named by --api-key-env or the settings", e.URL, e.StatusCode)
	case e.Is(vocab.ErrModelNotFound) && e.Model != "":
		return fmt.Sprintf("model %q is not on the Ollama server at %s — run `prototyper pull %s`", e.Model, e.URL, e.Model)
	case e.Is(vocab.ErrCapability):
		return fmt.Sprintf("Ollama refused the request: %s — pick a model that has this capability (see `prototyper models`) or turn the feature off (e.g. --think off)", msg)
	case e.Is(vocab.ErrBusy):
		return fmt.Sprintf("Ollama at %s is busy (HTTP 503: %s) — wait a moment and try again", e.URL, msg)
	case e.StatusCode >= 500:
		return fmt.Sprintf("Ollama at %s failed (HTTP %d: %s) — try again; if it repeats, check the Ollama server log", e.URL, e.StatusCode, msg)
	}
	return fmt.Sprintf("Ollama at %s refused the request (HTTP %d: %s) — check the address, and the Ollama server log for the reason", e.URL, e.StatusCode, msg)
}

// StreamError is an {"error":…} line inside a stream, usually on an HTTP 200 answer.
type StreamError struct {
	Message string // the server's text, unchanged
	Line    int    // 1-based line number
}

func (e *StreamError) Error() string {
	return fmt.Sprintf("Ollama reported an error mid-stream: %s — try again; if it repeats, check the Ollama server log", e.Message)
}
func (e *StreamError) Is(target error) bool { return target == vocab.ErrStream }

// IncompleteStreamError is a stream that ended (EOF or a broken connection) before its
// done:true line ([vocab.ErrIncompleteStream]). The tool calls
// it carried were not returned.
type IncompleteStreamError struct {
	Lines int   // lines received
	Err   error // the read error; nil for a clean EOF
}

func (e *IncompleteStreamError) Error() string {
	cause := "the connection closed"
	if e.Err != nil {
		cause = e.Err.Error()
	}
	return fmt.Sprintf("Ollama's answer stopped before it was complete (after %d lines; %s) — nothing from it was run; try again", e.Lines, cause)
}
func (e *IncompleteStreamError) Unwrap() error        { return e.Err }
func (e *IncompleteStreamError) Is(target error) bool { return target == vocab.ErrIncompleteStream }

// LineTooLongError is a line longer than the client's limit ([vocab.ErrLineTooLong]).
type LineTooLongError struct {
	Line  int // 1-based line number
	Limit int // bytes
}

func (e *LineTooLongError) Error() string {
	return fmt.Sprintf("the server sent a line longer than %s (line %d), more than an Ollama answer holds — check that the address points at an Ollama server, or ask for a shorter answer", vocab.FormatBytes(int64(e.Limit)), e.Line)
}
func (e *LineTooLongError) Is(target error) bool { return target == vocab.ErrLineTooLong }

// MalformedLineError is a line that is not the JSON object expected ([vocab.ErrMalformedLine]).
type MalformedLineError struct {
	Line int    // 1-based line number
	Text string // the start of the line
	Err  error  // the JSON error
}

func (e *MalformedLineError) Error() string {
	return fmt.Sprintf("Ollama sent malformed JSON on line %d (%v; starts %q) — check that the address points at an Ollama server", e.Line, e.Err, e.Text)
}
func (e *MalformedLineError) Unwrap() error        { return e.Err }
func (e *MalformedLineError) Is(target error) bool { return target == vocab.ErrMalformedLine }

// TimeoutError is a first-byte or idle timeout.
type TimeoutError struct {
	FirstByte bool // true: nothing arrived at all; false: the answer stopped growing
	After     time.Duration
	URL       string
	Path      string // the API path asked, e.g. /api/chat; "" when unknown
}

func (e *TimeoutError) Error() string {
	switch {
	case e.FirstByte && e.Path != "" && e.Path != "/api/chat" && e.Path != "/api/pull":
		// a question that loads no model: the server is stuck, not loading
		return fmt.Sprintf("Ollama at %s did not answer within %s — check that it is running and not stuck (restart `ollama serve`), or that the address is right", e.URL, humanDuration(e.After))
	case e.FirstByte:
		return fmt.Sprintf("Ollama at %s sent nothing for %s (a model can be slow to load) — %s", e.URL, humanDuration(e.After), vocab.FirstByteAdvice)
	}
	return fmt.Sprintf("Ollama at %s sent nothing new for %s mid-answer — try again; if it repeats, check the Ollama server log", e.URL, humanDuration(e.After))
}

// humanDuration writes d the way a person would: 300ms, 15 s, 5 min, 1 min 30 s.
func humanDuration(d time.Duration) string {
	switch {
	case d < time.Second:
		return fmt.Sprintf("%d ms", d.Milliseconds())
	case d < time.Minute:
		return strings.TrimSuffix(strings.TrimSuffix(fmt.Sprintf("%.1f", d.Seconds()), "0"), ".") + " s"
	case d%time.Minute == 0:
		return fmt.Sprintf("%d min", int(d/time.Minute))
	}
	return fmt.Sprintf("%d min %d s", int(d/time.Minute), int(d%time.Minute/time.Second))
}

// Is matches vocab.ErrFirstByteTimeout or vocab.ErrIdleTimeout, and context.DeadlineExceeded.
func (e *TimeoutError) Is(target error) bool { return vocab.TimeoutIs(e.FirstByte, target) }

// Retryable reports whether trying the same request again may succeed: the server was not
// running, busy or failing (5xx, 429), timed out, broke the stream, or reported an error
// mid-stream. Cancellation, 4xx answers, too-long and malformed lines are not retryable.
func Retryable(err error) bool {
	if err == nil || errors.Is(err, context.Canceled) {
		return false
	}
	var se *StatusError
	if errors.As(err, &se) {
		return httpstream.RetryableStatus(se.StatusCode)
	}
	switch {
	case errors.Is(err, vocab.ErrLineTooLong), errors.Is(err, vocab.ErrMalformedLine), errors.Is(err, ErrNotOllama):
		return false
	case errors.Is(err, ErrNotRunning), errors.Is(err, vocab.ErrIncompleteStream), errors.Is(err, vocab.ErrStream),
		errors.Is(err, vocab.ErrFirstByteTimeout), errors.Is(err, vocab.ErrIdleTimeout):
		return true
	}
	var te *httpstream.NetworkError
	return errors.As(err, &te)
}

// Code names the kind of err for the `error` event: not_running, model_not_found,
// capability_missing, busy, http_error, stream_error, incomplete_stream, line_too_long,
// malformed_line, not_ollama, unauthorized, first_byte_timeout, idle_timeout,
// answer_too_long, redirected, canceled, network or unknown.
func Code(err error) string {
	if err == nil {
		return ""
	}
	if code := vocab.SharedCode(err); code != "" {
		return code
	}
	switch {
	case errors.Is(err, ErrNotRunning):
		return vocab.CodeNotRunning
	case errors.Is(err, ErrNotOllama):
		return vocab.CodeNotOllama
	}
	var re *httpstream.RedirectError
	if errors.As(err, &re) {
		return vocab.CodeRedirected
	}
	var se *StatusError
	if errors.As(err, &se) {
		return vocab.CodeHTTPError
	}
	var te *httpstream.NetworkError
	if errors.As(err, &te) {
		return vocab.CodeNetwork
	}
	return vocab.CodeUnknown
}

// refused is the error of a request that nothing answered: the connection was refused.
func (c *Client) refused(err error) error { return &NotRunningError{URL: c.URL(), Err: err} }

// networkError is the error of a network failure other than a refused connection, before
// any answer.
func (c *Client) networkError(err error) error {
	return &httpstream.NetworkError{Server: "Ollama", URL: c.URL(), Check: "the server is up and the address is right", Err: err}
}
