package ollama

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"net/url"
	"strconv"
	"time"

	"github.com/cenkalti/backoff/v4"

	"prototyper/model/internal/httpstream"
	"prototyper/model/vocab"
)

// DefaultPullIdleTimeout is longer than a chat's idle timeout: the server says nothing
// while it verifies a multi-gigabyte layer. The other defaults are both clients' (package
// vocab).
const DefaultPullIdleTimeout = 10 * time.Minute

// Client talks to one Ollama server. It is safe for concurrent use.
type Client struct {
	base            *url.URL
	http            *http.Client
	maxLine         int
	maxAnswer       int
	firstByte, idle time.Duration
	metadata        time.Duration
	pullIdle        time.Duration
	retry           httpstream.Policy
	notify          func(RetryInfo)
	newID           func() string
	authorization   string // the Authorization header of a server behind a proxy; never logged
	version         *serverVersion
}

// Option configures a [Client].
type Option func(*Client)

// WithHTTPClient sends requests with hc. Its Timeout is ignored (a whole-request timeout
// would kill long generations); the client's own timeouts apply instead.
func WithHTTPClient(hc *http.Client) Option {
	return func(c *Client) {
		cp := *hc
		cp.Timeout = 0
		c.http = &cp
	}
}

// WithMaxLineSize sets the longest line accepted in a stream, in bytes (default 16 MiB).
func WithMaxLineSize(n int) Option { return func(c *Client) { c.maxLine = n } }

// WithMaxAnswerSize bounds one answer of Chat — its text, thinking and tool calls together
// — in bytes (default 8 MiB); past it the stream is cut with a [*vocab.AnswerTooLongError]. 0 or
// less keeps the default.
func WithMaxAnswerSize(n int) Option {
	return func(c *Client) {
		if n > 0 {
			c.maxAnswer = n
		}
	}
}

// WithFirstByteTimeout bounds the wait for the first line of an answer (default 5 min).
func WithFirstByteTimeout(d time.Duration) Option { return func(c *Client) { c.firstByte = d } }

// WithMetadataTimeout bounds the wait for the answer of List, Show and Version (default
// 15 s); these load no model, so they never need the chat's first-byte timeout.
func WithMetadataTimeout(d time.Duration) Option { return func(c *Client) { c.metadata = d } }

// WithIdleTimeout bounds the silence between two lines of a chat stream (default 60 s).
func WithIdleTimeout(d time.Duration) Option { return func(c *Client) { c.idle = d } }

// WithPullIdleTimeout bounds the silence between two lines of a pull (default 10 min).
func WithPullIdleTimeout(d time.Duration) Option { return func(c *Client) { c.pullIdle = d } }

// WithRetry bounds the retries before the first byte: at most attempts requests in all
// (1 disables retrying) and at most maxElapsed of waiting (default 5 and 30 s).
func WithRetry(attempts int, maxElapsed time.Duration) Option {
	return func(c *Client) { c.retry.Attempts, c.retry.MaxElapsed = attempts, maxElapsed }
}

// WithRetryInterval sets the first backoff delay and the largest one (default 500 ms and
// 5 s); delays are jittered and grow exponentially between them.
func WithRetryInterval(initial, max time.Duration) Option {
	return func(c *Client) { c.retry.Initial, c.retry.MaxInterval = initial, max }
}

// WithRetryNotify reports the retries of List, Show, Version and Pull (Chat reports its own
// as [EventRetry]).
func WithRetryNotify(fn func(RetryInfo)) Option { return func(c *Client) { c.notify = fn } }

// WithAuthorization sends value as the Authorization header of every request, for a
// remote server behind a proxy that wants a token (e.g. "Bearer …"). The value is never
// part of an error or a log.
func WithAuthorization(value string) Option { return func(c *Client) { c.authorization = value } }

// New returns a client for the server at base (see [ResolveHost]).
func New(base *url.URL, opts ...Option) *Client {
	c := &Client{
		base:      base,
		http:      &http.Client{},
		maxLine:   vocab.DefaultMaxLineSize,
		maxAnswer: vocab.DefaultMaxAnswerSize,
		firstByte: vocab.DefaultFirstByteTimeout,
		idle:      vocab.DefaultIdleTimeout,
		metadata:  vocab.DefaultMetadataTimeout,
		pullIdle:  DefaultPullIdleTimeout,
		retry: httpstream.Policy{Attempts: vocab.DefaultRetryAttempts, MaxElapsed: vocab.DefaultRetryMaxElapsed,
			Initial: vocab.DefaultRetryInitial, MaxInterval: vocab.DefaultRetryMaxInterval},
		newID:   vocab.NewCallID,
		version: &serverVersion{},
	}
	for _, o := range opts {
		o(c)
	}
	return c
}

// With returns a copy of c with opts applied on top of its own; the copy shares c's
// connections. It is cheap: a run can use it to change one timeout.
func (c *Client) With(opts ...Option) *Client { return httpstream.Configured(c, opts) }

// FirstByteTimeout returns how long Chat waits for the first line of an answer (0: for ever).
func (c *Client) FirstByteTimeout() time.Duration { return c.firstByte }

// URL returns the server's base URL as a string.
func (c *Client) URL() string { return c.base.String() }

// open sends a request, retrying before the first byte, and returns the 2xx answer.
// onRetry may stop the retrying by returning an error.
// firstByte bounds the wait for the first line of each attempt (0: none), idle the silence
// between lines after it.
func (c *Client) open(ctx context.Context, method, path string, body []byte, model string, firstByte, idle time.Duration, onRetry func(RetryInfo) error) (*httpstream.Stream, error) {
	return httpstream.Do(ctx, c.retry, func() (*httpstream.Stream, error) {
		return c.attempt(ctx, method, path, body, model, firstByte, idle)
	}, retryAfter, retryInfo(onRetry))
}

// retryInfo gives onRetry (nil: none) the retries of [httpstream.Do] as RetryInfo.
func retryInfo(onRetry func(RetryInfo) error) func(httpstream.Retry) error {
	if onRetry == nil {
		return nil
	}
	return func(r httpstream.Retry) error {
		return onRetry(RetryInfo{Attempt: r.Attempt, Delay: r.Delay, Reason: retryReason(r.Err), Err: r.Err})
	}
}

// retryAfter is the delay a failing server asked for.
func retryAfter(err error) time.Duration {
	var se *StatusError
	if errors.As(err, &se) {
		return se.RetryAfter
	}
	return 0
}

// attempt sends the request once. Errors that must not be retried are wrapped in
// backoff.Permanent.
func (c *Client) attempt(ctx context.Context, method, path string, body []byte, model string, firstByte, idle time.Duration) (*httpstream.Stream, error) {
	resp, s, err := httpstream.Send(ctx, c.http, httpstream.Request{
		Method: method, URL: c.base.JoinPath(path).String(), Body: body,
		Accept: "application/x-ndjson", Authorization: c.authorization,
		FirstByte: firstByte, FirstByteTimeout: &TimeoutError{FirstByte: true, After: firstByte, URL: c.URL(), Path: path},
		Idle: idle, IdleTimeout: &TimeoutError{After: idle, URL: c.URL()},
	})
	if err != nil {
		return nil, httpstream.Unanswered(err, c.refused, c.networkError)
	}
	if resp.StatusCode >= 400 {
		raw := s.ReadError()
		text, isOllama := errorText(raw)
		text = s.Mask(text) // the body's escapes may have spelled the key
		if httpstream.Unauthorized(resp.StatusCode) {
			// a proxy in front of the server, whatever page it answers with
			return nil, backoff.Permanent(&StatusError{StatusCode: resp.StatusCode, URL: c.URL(), Model: model,
				Message: snippet([]byte(text)), TokenSent: c.authorization != ""})
		}
		if webPage(resp.Header, raw) || (resp.StatusCode == http.StatusNotFound && !isOllama) {
			// Ollama answers every error with {"error":…}; anything else is another server
			return nil, backoff.Permanent(&NotOllamaError{URL: c.URL(), Path: path, StatusCode: resp.StatusCode,
				WebPage: webPage(resp.Header, raw)})
		}
		se := &StatusError{StatusCode: resp.StatusCode, URL: c.URL(), Model: model, Message: text}
		if resp.StatusCode >= 500 {
			se.RetryAfter = httpstream.ParseRetryAfter(resp.Header.Get("Retry-After"), time.Now())
			return nil, se
		}
		return nil, backoff.Permanent(se)
	}
	if webPage(resp.Header, nil) {
		s.Close()
		return nil, backoff.Permanent(&NotOllamaError{URL: c.URL(), Path: path, StatusCode: resp.StatusCode, WebPage: true})
	}
	return s, nil
}

// errorText returns the {"error":…} text of an error body and true, else the body itself.
func errorText(raw []byte) (string, bool) {
	var e struct {
		Error string `json:"error"`
	}
	if json.Unmarshal(raw, &e) == nil && e.Error != "" {
		return e.Error, true
	}
	return string(bytes.TrimSpace(raw)), false
}

// webPage reports whether an answer is an HTML page (by its Content-Type, or by the start
// of its body when one was read): a web server or a proxy, never Ollama's API.
func webPage(h http.Header, body []byte) bool {
	b := bytes.ToLower(bytes.TrimSpace(body))
	return httpstream.HTMLType(h) || bytes.HasPrefix(b, []byte("<!doctype html")) || bytes.HasPrefix(b, []byte("<html"))
}

func retryReason(err error) string {
	var se *StatusError
	switch {
	case errors.Is(err, ErrNotRunning):
		return "Ollama is not answering yet"
	case errors.Is(err, vocab.ErrBusy):
		return "Ollama is busy (HTTP 503)"
	case errors.As(err, &se):
		return "Ollama failed (HTTP " + strconv.Itoa(se.StatusCode) + ")"
	}
	return "network error"
}

// getJSON sends a request whose answer is one JSON document and decodes it into out.
func (c *Client) getJSON(ctx context.Context, method, path string, in any, model string, out any) error {
	var body []byte
	if in != nil {
		var err error
		if body, err = json.Marshal(in); err != nil {
			return err
		}
	}
	r, err := c.open(ctx, method, path, body, model, c.metadata, c.idle, c.notifyFunc())
	if err != nil {
		return err
	}
	defer r.Close()
	raw, err := io.ReadAll(io.LimitReader(r.Body, int64(c.maxLine)+1))
	if err != nil {
		return r.Why(err)
	}
	if len(raw) > c.maxLine {
		return &LineTooLongError{Line: 1, Limit: c.maxLine}
	}
	if err := json.Unmarshal(raw, out); err != nil {
		return &MalformedLineError{Line: 1, Text: snippet(raw), Err: err}
	}
	return nil
}

func (c *Client) notifyFunc() func(RetryInfo) error {
	if c.notify == nil {
		return nil
	}
	return func(ri RetryInfo) error { c.notify(ri); return nil }
}

func snippet(b []byte) string {
	if len(b) > 80 {
		b = b[:80]
	}
	return string(b)
}
