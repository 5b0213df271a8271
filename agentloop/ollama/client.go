package ollama

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"io"
	"math"
	"net"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/cenkalti/backoff/v4"
)

// Defaults of a [Client]; each has an [Option].
const (
	DefaultMaxLineSize      = 16 << 20
	DefaultFirstByteTimeout = 5 * time.Minute
	DefaultIdleTimeout      = 60 * time.Second
	// DefaultMetadataTimeout bounds the wait for /api/show, /api/tags and /api/version,
	// which load no model: a server that says nothing for this long is stuck, and waiting
	// the chat's first-byte timeout for it would only delay the chat's own wait.
	DefaultMetadataTimeout = 15 * time.Second
	// DefaultPullIdleTimeout is longer than the chat's: the server says nothing while it
	// verifies a multi-gigabyte layer.
	DefaultPullIdleTimeout  = 10 * time.Minute
	DefaultRetryAttempts    = 5
	DefaultRetryMaxElapsed  = 30 * time.Second
	DefaultRetryInitial     = 500 * time.Millisecond
	DefaultRetryMaxInterval = 5 * time.Second
)

// Client talks to one Ollama server. It is safe for concurrent use.
type Client struct {
	base            *url.URL
	http            *http.Client
	maxLine         int
	firstByte, idle time.Duration
	metadata        time.Duration
	pullIdle        time.Duration
	attempts        int
	maxElapsed      time.Duration
	initial, maxInt time.Duration
	notify          func(RetryInfo)
	newID           func() string
	authorization   string // the Authorization header of a server behind a proxy; never logged
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
	return func(c *Client) { c.attempts, c.maxElapsed = attempts, maxElapsed }
}

// WithRetryInterval sets the first backoff delay and the largest one (default 500 ms and
// 5 s); delays are jittered and grow exponentially between them.
func WithRetryInterval(initial, max time.Duration) Option {
	return func(c *Client) { c.initial, c.maxInt = initial, max }
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
		base:       base,
		http:       &http.Client{},
		maxLine:    DefaultMaxLineSize,
		firstByte:  DefaultFirstByteTimeout,
		idle:       DefaultIdleTimeout,
		metadata:   DefaultMetadataTimeout,
		pullIdle:   DefaultPullIdleTimeout,
		attempts:   DefaultRetryAttempts,
		maxElapsed: DefaultRetryMaxElapsed,
		initial:    DefaultRetryInitial,
		maxInt:     DefaultRetryMaxInterval,
		newID:      newCallID,
	}
	for _, o := range opts {
		o(c)
	}
	if c.attempts < 1 {
		c.attempts = 1
	}
	return c
}

// With returns a copy of c with opts applied on top of its own; the copy shares c's
// connections. It is cheap: a run can use it to change one timeout.
func (c *Client) With(opts ...Option) *Client {
	cp := *c
	for _, o := range opts {
		o(&cp)
	}
	if cp.attempts < 1 {
		cp.attempts = 1
	}
	return &cp
}

// FirstByteTimeout returns how long Chat waits for the first line of an answer (0: for ever).
func (c *Client) FirstByteTimeout() time.Duration { return c.firstByte }

// URL returns the server's base URL as a string.
func (c *Client) URL() string { return c.base.String() }

// response is an answer being read: its body, and the timers that cancel it.
type response struct {
	c       *Client
	resp    *http.Response
	ctx     context.Context // the caller's
	reqCtx  context.Context
	cancel  context.CancelCauseFunc
	first   *time.Timer // the first-byte timer, stopped at the first line
	idle    *time.Timer
	idleDur time.Duration
	gotLine bool
}

// lineArrived switches from the first-byte timer to the idle timer, or re-arms the latter.
func (r *response) lineArrived() {
	if r.gotLine {
		r.idle.Reset(r.idleDur)
		return
	}
	r.gotLine = true
	r.first.Stop()
	if r.idleDur > 0 {
		timeout := &TimeoutError{After: r.idleDur, URL: r.c.URL()}
		r.idle = time.AfterFunc(r.idleDur, func() { r.cancel(timeout) })
	} else {
		r.idle = time.NewTimer(time.Duration(1<<63 - 1))
	}
}

// readErr turns an error of reading the body into the reason it happened: the caller's
// cancellation, a timeout, or the network error itself.
func (r *response) readErr(err error) error {
	if r.ctx.Err() != nil {
		return context.Cause(r.ctx)
	}
	var te *TimeoutError
	if cause := context.Cause(r.reqCtx); errors.As(cause, &te) {
		return te
	}
	return err
}

func (r *response) close() {
	r.first.Stop()
	if r.idle != nil {
		r.idle.Stop()
	}
	r.resp.Body.Close()
	r.cancel(nil)
}

// open sends a request, retrying before the first byte, and returns the 2xx answer.
// onRetry may stop the retrying by returning an error.
// firstByte bounds the wait for the first line of each attempt (0: none), idle the silence
// between lines after it.
func (c *Client) open(ctx context.Context, method, path string, body []byte, model string, firstByte, idle time.Duration, onRetry func(RetryInfo) error) (*response, error) {
	exp := backoff.NewExponentialBackOff(
		backoff.WithInitialInterval(c.initial),
		backoff.WithMaxInterval(c.maxInt),
		backoff.WithMaxElapsedTime(c.maxElapsed),
	)
	bo := &retryAfterBackOff{inner: exp, maxElapsed: c.maxElapsed}
	retryCtx, stopRetrying := context.WithCancel(ctx)
	defer stopRetrying()
	// WithContext outermost, so that cancelling ctx ends a backoff sleep at once.
	policy := backoff.WithContext(backoff.WithMaxRetries(bo, uint64(c.attempts-1)), retryCtx)

	var (
		out       *response
		attempt   int
		notifyErr error
	)
	op := func() error {
		attempt++
		bo.retryAfter = 0
		r, err := c.attempt(ctx, method, path, body, model, firstByte, idle)
		if err != nil {
			var se *StatusError
			if errors.As(err, &se) {
				bo.retryAfter = se.RetryAfter
			}
			return err
		}
		out = r
		return nil
	}
	notify := func(err error, delay time.Duration) {
		info := RetryInfo{Attempt: attempt + 1, Delay: delay, Reason: retryReason(err), Err: err}
		if onRetry != nil {
			if e := onRetry(info); e != nil && notifyErr == nil {
				notifyErr = e
				stopRetrying()
			}
		}
	}
	err := backoff.RetryNotify(op, policy, notify)
	switch {
	case notifyErr != nil:
		return nil, notifyErr
	case ctx.Err() != nil:
		if out != nil {
			out.close()
		}
		return nil, context.Cause(ctx)
	case err != nil:
		return nil, err
	}
	return out, nil
}

// attempt sends the request once. Errors that must not be retried are wrapped in
// backoff.Permanent.
func (c *Client) attempt(ctx context.Context, method, path string, body []byte, model string, firstByte, idle time.Duration) (*response, error) {
	reqCtx, cancel := context.WithCancelCause(ctx)
	firstTimeout := &TimeoutError{FirstByte: true, After: firstByte, URL: c.URL(), Path: path}
	// A zero first-byte timeout means none: the timer is then armed for ever.
	wait := firstByte
	if wait <= 0 {
		wait = math.MaxInt64
	}
	first := time.AfterFunc(wait, func() { cancel(firstTimeout) })

	var rd io.Reader
	if body != nil {
		rd = bytes.NewReader(body)
	}
	req, err := http.NewRequestWithContext(reqCtx, method, c.base.JoinPath(path).String(), rd)
	if err != nil {
		first.Stop()
		cancel(nil)
		return nil, backoff.Permanent(err)
	}
	if body != nil {
		req.Header.Set("Content-Type", "application/json")
	}
	req.Header.Set("Accept", "application/x-ndjson")
	req.Header.Set("User-Agent", "prototyper")
	if c.authorization != "" {
		req.Header.Set("Authorization", c.authorization)
	}

	resp, err := c.http.Do(req)
	if err != nil {
		first.Stop()
		cause := context.Cause(reqCtx)
		cancel(nil)
		var te *TimeoutError
		switch {
		case ctx.Err() != nil:
			return nil, backoff.Permanent(context.Cause(ctx))
		case errors.As(cause, &te):
			return nil, backoff.Permanent(te)
		case isRefused(err):
			return nil, &NotRunningError{URL: c.URL(), Err: err}
		}
		return nil, &transportError{URL: c.URL(), Err: err}
	}
	if resp.StatusCode >= 400 {
		raw, _ := io.ReadAll(io.LimitReader(resp.Body, 1<<20))
		resp.Body.Close()
		first.Stop()
		cancel(nil)
		text, isOllama := errorText(raw)
		if resp.StatusCode == http.StatusUnauthorized || resp.StatusCode == http.StatusForbidden {
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
			se.RetryAfter = parseRetryAfter(resp.Header.Get("Retry-After"), time.Now())
			return nil, se
		}
		return nil, backoff.Permanent(se)
	}
	if webPage(resp.Header, nil) {
		resp.Body.Close()
		first.Stop()
		cancel(nil)
		return nil, backoff.Permanent(&NotOllamaError{URL: c.URL(), Path: path, StatusCode: resp.StatusCode, WebPage: true})
	}
	return &response{c: c, resp: resp, ctx: ctx, reqCtx: reqCtx, cancel: cancel, first: first, idleDur: idle}, nil
}

// isRefused reports whether err is a failure to connect at all.
func isRefused(err error) bool {
	if errors.Is(err, syscall.ECONNREFUSED) {
		return true
	}
	var op *net.OpError
	return errors.As(err, &op) && op.Op == "dial"
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
	ct := strings.ToLower(h.Get("Content-Type"))
	if strings.HasPrefix(ct, "text/html") || strings.HasPrefix(ct, "application/xhtml") {
		return true
	}
	b := bytes.ToLower(bytes.TrimSpace(body))
	return bytes.HasPrefix(b, []byte("<!doctype html")) || bytes.HasPrefix(b, []byte("<html"))
}

// parseRetryAfter reads a Retry-After header: delay-seconds or an HTTP date.
func parseRetryAfter(v string, now time.Time) time.Duration {
	if v == "" {
		return 0
	}
	if s, err := strconv.Atoi(v); err == nil {
		if s < 0 {
			return 0
		}
		return time.Duration(s) * time.Second
	}
	if t, err := http.ParseTime(v); err == nil {
		if d := t.Sub(now); d > 0 {
			return d
		}
	}
	return 0
}

func retryReason(err error) string {
	var se *StatusError
	switch {
	case errors.Is(err, ErrNotRunning):
		return "Ollama is not answering yet"
	case errors.Is(err, ErrBusy):
		return "Ollama is busy (HTTP 503)"
	case errors.As(err, &se):
		return "Ollama failed (HTTP " + strconv.Itoa(se.StatusCode) + ")"
	}
	return "network error"
}

// retryAfterBackOff is the exponential policy, except that a server's Retry-After replaces
// the computed delay (and stops the retrying when it would pass the elapsed-time bound).
type retryAfterBackOff struct {
	inner      *backoff.ExponentialBackOff
	maxElapsed time.Duration
	retryAfter time.Duration
}

func (b *retryAfterBackOff) Reset() { b.inner.Reset() }

func (b *retryAfterBackOff) NextBackOff() time.Duration {
	next := b.inner.NextBackOff()
	if next == backoff.Stop || b.retryAfter <= 0 {
		return next
	}
	if b.maxElapsed > 0 && b.inner.GetElapsedTime()+b.retryAfter > b.maxElapsed {
		return backoff.Stop
	}
	return b.retryAfter
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
	defer r.close()
	raw, err := io.ReadAll(io.LimitReader(r.resp.Body, int64(c.maxLine)+1))
	if err != nil {
		return r.readErr(err)
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
