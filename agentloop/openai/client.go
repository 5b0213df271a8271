package openai

import (
	"bytes"
	"context"
	"errors"
	"fmt"
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

	"prototyper/agentloop/ollama"
)

const (
	chatPath   = "/chat/completions"
	modelsPath = "/models"
)

// Client talks to one OpenAI-compatible server. It is safe for concurrent use.
type Client struct {
	base            *url.URL
	http            *http.Client
	key, keyEnv     string
	maxLine         int
	firstByte, idle time.Duration
	metadata        time.Duration
	attempts        int
	maxElapsed      time.Duration
	initial, maxInt time.Duration
}

// Option configures a [Client].
type Option func(*Client)

// WithAPIKey sends key as a bearer token. env names the environment variable it came from,
// for the messages that say which key was refused; the key itself is never in a message.
func WithAPIKey(key, env string) Option { return func(c *Client) { c.key, c.keyEnv = key, env } }

// WithTimeouts bounds the wait for an answer's first event (default 5 min, a model can be
// slow to load; 0: no bound) and the silence between two lines of a stream (default 60 s).
func WithTimeouts(firstByte, idle time.Duration) Option {
	return func(c *Client) { c.firstByte, c.idle = firstByte, idle }
}

// WithRetry bounds the retries before the first byte — at most attempts requests in all (1
// disables retrying), at most maxElapsed of waiting — and sets the first backoff delay and
// the largest one (jittered, growing between them).
func WithRetry(attempts int, maxElapsed, initial, largest time.Duration) Option {
	return func(c *Client) {
		c.attempts, c.maxElapsed, c.initial, c.maxInt = attempts, maxElapsed, initial, largest
	}
}

// ParseBaseURL checks a server's base URL: http or https with a host. A URL without a path
// gets /v1, the path every OpenAI-compatible server serves the API under.
func ParseBaseURL(raw string) (*url.URL, error) {
	s := strings.TrimRight(strings.TrimSpace(raw), "/")
	u, err := url.Parse(s)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return nil, fmt.Errorf("the base URL must be the server's API address, such as http://127.0.0.1:8000/v1, not %q", raw)
	}
	if u.Path == "" {
		u.Path = "/v1"
	}
	u.RawQuery, u.Fragment = "", ""
	return u, nil
}

// New returns a client of the server at base (see [ParseBaseURL]).
func New(base *url.URL, opts ...Option) *Client {
	// the native client's limits: a server of either kind gets the same patience
	c := &Client{
		base: base, http: &http.Client{}, maxLine: ollama.DefaultMaxLineSize,
		firstByte: ollama.DefaultFirstByteTimeout, idle: ollama.DefaultIdleTimeout, metadata: ollama.DefaultMetadataTimeout,
		attempts: ollama.DefaultRetryAttempts, maxElapsed: ollama.DefaultRetryMaxElapsed,
		initial: ollama.DefaultRetryInitial, maxInt: ollama.DefaultRetryMaxInterval,
	}
	return c.With(opts...)
}

// With returns a copy of c with opts applied on top of its own, sharing c's connections.
func (c *Client) With(opts ...Option) *Client {
	cp := *c
	for _, o := range opts {
		o(&cp)
	}
	cp.attempts = max(cp.attempts, 1)
	return &cp
}

// IdleTimeout returns how long a stream may stay silent mid-answer.
func (c *Client) IdleTimeout() time.Duration { return c.idle }

// URL returns the base URL as a string.
func (c *Client) URL() string { return c.base.String() }

// stream is an answer being read: its body, and the timers that end it.
type stream struct {
	body    io.ReadCloser
	ctx     context.Context // the caller's
	reqCtx  context.Context
	cancel  context.CancelCauseFunc
	first   *time.Timer
	idle    *time.Timer
	idleDur time.Duration
	started bool
	url     string
}

// started stops the first-byte timer: the answer has begun.
func (s *stream) begin() {
	if !s.started {
		s.started = true
		s.first.Stop()
	}
}

// alive re-arms the idle timer: a line arrived.
func (s *stream) alive() {
	if s.idleDur <= 0 {
		return
	}
	if s.idle == nil {
		timeout := &TimeoutError{After: s.idleDur, URL: s.url}
		s.idle = time.AfterFunc(s.idleDur, func() { s.cancel(timeout) })
		return
	}
	s.idle.Reset(s.idleDur)
}

// why explains a read error: the caller's cancellation, a timeout, or err itself.
func (s *stream) why(err error) error {
	if s.ctx.Err() != nil {
		return context.Cause(s.ctx)
	}
	var te *TimeoutError
	if cause := context.Cause(s.reqCtx); errors.As(cause, &te) {
		return te
	}
	return err
}

func (s *stream) close() {
	s.first.Stop()
	if s.idle != nil {
		s.idle.Stop()
	}
	s.body.Close()
	s.cancel(nil)
}

// retryNotice is one retry about to happen.
type retryNotice struct {
	attempt int
	delay   time.Duration
	reason  string
}

// open sends a request and returns its 2xx answer, retrying before the first byte.
// firstByte bounds each attempt until the answer begins (0: no bound); onRetry may stop
// the retrying by returning an error.
func (c *Client) open(ctx context.Context, method, path string, body []byte, model string, firstByte time.Duration, onRetry func(retryNotice) error) (*stream, error) {
	exp := backoff.NewExponentialBackOff(backoff.WithInitialInterval(c.initial),
		backoff.WithMaxInterval(c.maxInt), backoff.WithMaxElapsedTime(c.maxElapsed))
	var retryAfter time.Duration
	policy := backoff.WithContext(backoff.WithMaxRetries(&serverDelay{exp, &retryAfter}, uint64(c.attempts-1)), ctx)
	var (
		out      *stream
		attempt  int
		stopping error
	)
	op := func() error {
		attempt++
		retryAfter = 0
		s, err := c.send(ctx, method, path, body, model, firstByte)
		var se *StatusError
		if errors.As(err, &se) {
			retryAfter = se.RetryAfter
		}
		out = s
		return err
	}
	notify := func(err error, delay time.Duration) {
		if onRetry != nil && stopping == nil {
			stopping = onRetry(retryNotice{attempt: attempt + 1, delay: delay, reason: retryReason(err)})
		}
	}
	err := backoff.RetryNotify(func() error {
		if stopping != nil {
			return backoff.Permanent(stopping)
		}
		return op()
	}, policy, notify)
	switch {
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

// serverDelay is the exponential policy, except that a server's Retry-After replaces the
// computed delay.
type serverDelay struct {
	*backoff.ExponentialBackOff
	retryAfter *time.Duration
}

func (b *serverDelay) NextBackOff() time.Duration {
	next := b.ExponentialBackOff.NextBackOff()
	if next == backoff.Stop || *b.retryAfter <= 0 {
		return next
	}
	if b.MaxElapsedTime > 0 && b.GetElapsedTime()+*b.retryAfter > b.MaxElapsedTime {
		return backoff.Stop
	}
	return *b.retryAfter
}

// send makes one attempt. Errors that must not be retried are backoff.Permanent.
func (c *Client) send(ctx context.Context, method, path string, body []byte, model string, firstByte time.Duration) (*stream, error) {
	reqCtx, cancel := context.WithCancelCause(ctx)
	wait := firstByte
	if wait <= 0 {
		wait = math.MaxInt64
	}
	timeout := &TimeoutError{FirstByte: true, After: firstByte, URL: c.URL(), Path: path}
	first := time.AfterFunc(wait, func() { cancel(timeout) })
	fail := func(err error) (*stream, error) {
		first.Stop()
		cancel(nil)
		return nil, err
	}
	var rd io.Reader
	if body != nil {
		rd = bytes.NewReader(body)
	}
	req, err := http.NewRequestWithContext(reqCtx, method, c.base.JoinPath(path).String(), rd)
	if err != nil {
		return fail(backoff.Permanent(err))
	}
	if body != nil {
		req.Header.Set("Content-Type", "application/json")
	}
	req.Header.Set("Accept", "text/event-stream, application/json")
	req.Header.Set("User-Agent", "prototyper")
	if c.key != "" {
		req.Header.Set("Authorization", "Bearer "+c.key)
	}
	resp, err := c.http.Do(req)
	if err != nil {
		var te *TimeoutError
		switch cause := context.Cause(reqCtx); {
		case ctx.Err() != nil:
			return fail(backoff.Permanent(context.Cause(ctx)))
		case errors.As(cause, &te):
			return fail(backoff.Permanent(te))
		case errors.Is(err, syscall.ECONNREFUSED) || isDial(err):
			return fail(&UnreachableError{URL: c.URL(), Err: err})
		}
		return fail(&networkError{URL: c.URL(), Err: err})
	}
	if resp.StatusCode >= 400 || isWebPage(resp.Header) {
		raw, _ := io.ReadAll(io.LimitReader(resp.Body, 1<<20))
		resp.Body.Close()
		return fail(c.statusError(resp, raw, path, model))
	}
	return &stream{body: resp.Body, ctx: ctx, reqCtx: reqCtx, cancel: cancel, first: first, idleDur: c.idle, url: c.URL()}, nil
}

// statusError explains an error answer; only 429 and 5xx may be retried.
func (c *Client) statusError(resp *http.Response, raw []byte, path, model string) error {
	msg, apiErr := apiErrorText(raw)
	web := isWebPage(resp.Header) || strings.HasPrefix(strings.ToLower(strings.TrimSpace(string(raw))), "<")
	auth := resp.StatusCode == http.StatusUnauthorized || resp.StatusCode == http.StatusForbidden
	if !auth && (web || (resp.StatusCode == http.StatusNotFound && !apiErr)) { // a proxy's 401 page is still a 401
		return backoff.Permanent(&NotOpenAIError{URL: c.URL(), Path: path, StatusCode: resp.StatusCode, WebPage: web})
	}
	if web {
		msg = http.StatusText(resp.StatusCode)
	}
	se := &StatusError{StatusCode: resp.StatusCode, Message: msg, URL: c.URL(), Path: path, Model: model,
		KeySent: c.key != "", KeyEnv: c.keyEnv, APIError: apiErr}
	if resp.StatusCode >= 500 || resp.StatusCode == http.StatusTooManyRequests {
		se.RetryAfter = parseRetryAfter(resp.Header.Get("Retry-After"))
		return se
	}
	return backoff.Permanent(se)
}

func isDial(err error) bool {
	var op *net.OpError
	return errors.As(err, &op) && op.Op == "dial"
}

func isWebPage(h http.Header) bool {
	ct := strings.ToLower(h.Get("Content-Type"))
	return strings.HasPrefix(ct, "text/html") || strings.HasPrefix(ct, "application/xhtml")
}

func parseRetryAfter(v string) time.Duration {
	if s, err := strconv.Atoi(v); err == nil && s > 0 {
		return time.Duration(s) * time.Second
	}
	if t, err := http.ParseTime(v); err == nil && time.Until(t) > 0 {
		return time.Until(t)
	}
	return 0
}

func retryReason(err error) string {
	var se *StatusError
	switch {
	case errors.Is(err, ErrUnreachable):
		return "the model server is not answering yet"
	case errors.As(err, &se):
		return "the model server answered HTTP " + strconv.Itoa(se.StatusCode)
	}
	return "network error"
}
