package openai

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"time"

	"github.com/cenkalti/backoff/v4"

	"prototyper/model/internal/httpstream"
	"prototyper/model/vocab"
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
	maxAnswer       int
	firstByte, idle time.Duration
	metadata        time.Duration
	retry           httpstream.Policy
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

// WithMaxAnswerSize bounds one answer of Chat — its text, thinking and tool calls together
// — in bytes (default: [vocab.DefaultMaxAnswerSize], 8 MiB); past it the stream is cut with an
// [*vocab.AnswerTooLongError]. 0 or less keeps the default.
func WithMaxAnswerSize(n int) Option {
	return func(c *Client) {
		if n > 0 {
			c.maxAnswer = n
		}
	}
}

// WithRetry bounds the retries before the first byte — at most attempts requests in all (1
// disables retrying), at most maxElapsed of waiting — and sets the first backoff delay and
// the largest one (jittered, growing between them).
func WithRetry(attempts int, maxElapsed, initial, largest time.Duration) Option {
	return func(c *Client) {
		c.retry = httpstream.Policy{Attempts: attempts, MaxElapsed: maxElapsed, Initial: initial, MaxInterval: largest}
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
	// both clients' limits: a server of either kind gets the same patience
	c := &Client{
		base: base, http: &http.Client{}, maxLine: vocab.DefaultMaxLineSize, maxAnswer: vocab.DefaultMaxAnswerSize,
		firstByte: vocab.DefaultFirstByteTimeout, idle: vocab.DefaultIdleTimeout, metadata: vocab.DefaultMetadataTimeout,
		retry: httpstream.Policy{Attempts: vocab.DefaultRetryAttempts, MaxElapsed: vocab.DefaultRetryMaxElapsed,
			Initial: vocab.DefaultRetryInitial, MaxInterval: vocab.DefaultRetryMaxInterval},
	}
	return c.With(opts...)
}

// With returns a copy of c with opts applied on top of its own, sharing c's connections.
func (c *Client) With(opts ...Option) *Client { return httpstream.Configured(c, opts) }

// IdleTimeout returns how long a stream may stay silent mid-answer.
func (c *Client) IdleTimeout() time.Duration { return c.idle }

// URL returns the base URL as a string.
func (c *Client) URL() string { return c.base.String() }

// open sends a request and returns its 2xx answer, retrying before the first byte.
// firstByte bounds each attempt until the answer begins (0: no bound); onRetry may stop
// the retrying by returning an error.
func (c *Client) open(ctx context.Context, method, path string, body []byte, model string, firstByte time.Duration, onRetry func(retryNotice) error) (*httpstream.Stream, error) {
	return httpstream.Do(ctx, c.retry, func() (*httpstream.Stream, error) {
		return c.send(ctx, method, path, body, model, firstByte)
	}, retryAfter, func(r httpstream.Retry) error {
		if onRetry == nil {
			return nil
		}
		return onRetry(retryNotice{attempt: r.Attempt, delay: r.Delay, reason: retryReason(r.Err)})
	})
}

// retryNotice is one retry about to happen.
type retryNotice struct {
	attempt int
	delay   time.Duration
	reason  string
}

// retryAfter is the delay a failing server asked for.
func retryAfter(err error) time.Duration {
	var se *StatusError
	if errors.As(err, &se) {
		return se.RetryAfter
	}
	return 0
}

// send makes one attempt. Errors that must not be retried are backoff.Permanent.
func (c *Client) send(ctx context.Context, method, path string, body []byte, model string, firstByte time.Duration) (*httpstream.Stream, error) {
	auth := ""
	if c.key != "" {
		auth = "Bearer " + c.key
	}
	resp, s, err := httpstream.Send(ctx, c.http, httpstream.Request{
		Method: method, URL: c.base.JoinPath(path).String(), Body: body,
		Accept: "text/event-stream, application/json", Authorization: auth,
		FirstByte: firstByte, FirstByteTimeout: &TimeoutError{FirstByte: true, After: firstByte, URL: c.URL(), Path: path},
		Idle: c.idle, IdleTimeout: &TimeoutError{After: c.idle, URL: c.URL()},
	})
	if err != nil {
		return nil, httpstream.Unanswered(err, c.refused, c.networkError)
	}
	if resp.StatusCode >= 400 || httpstream.HTMLType(resp.Header) {
		return nil, c.statusError(resp, s.ReadError(), s.Mask, path, model)
	}
	return s, nil
}

// statusError explains an error answer; only 429 and 5xx may be retried.
func (c *Client) statusError(resp *http.Response, raw []byte, mask func(string) string, path, model string) error {
	msg, apiErr := apiErrorText(raw)
	msg = mask(msg) // the body's escapes may have spelled the key
	web := httpstream.HTMLType(resp.Header) || strings.HasPrefix(strings.ToLower(strings.TrimSpace(string(raw))), "<")
	auth := httpstream.Unauthorized(resp.StatusCode)
	if !auth && (web || (resp.StatusCode == http.StatusNotFound && !apiErr)) { // a proxy's 401 page is still a 401
		return backoff.Permanent(&NotOpenAIError{URL: c.URL(), Path: path, StatusCode: resp.StatusCode, WebPage: web})
	}
	if web {
		msg = http.StatusText(resp.StatusCode)
	}
	se := &StatusError{StatusCode: resp.StatusCode, Message: msg, URL: c.URL(), Path: path, Model: model,
		KeySent: c.key != "", KeyEnv: c.keyEnv, APIError: apiErr}
	if httpstream.RetryableStatus(resp.StatusCode) {
		se.RetryAfter = httpstream.ParseRetryAfter(resp.Header.Get("Retry-After"), time.Now())
		return se
	}
	return backoff.Permanent(se)
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

// apiErrorText reads the message of an error body: {"error":{"message":…}} (OpenAI, Ollama),
// {"error":"…"}, {"message":…} (vLLM) or {"detail":…}; ok is false when the body is none
// of these.
func apiErrorText(raw []byte) (msg string, ok bool) {
	var e struct {
		Error   json.RawMessage `json:"error"`
		Message string          `json:"message"`
		Detail  any             `json:"detail"`
	}
	if json.Unmarshal(raw, &e) != nil {
		return strings.TrimSpace(snippet(raw, 200)), false
	}
	var nested struct {
		Message string `json:"message"`
	}
	var flat string
	switch {
	case len(e.Error) > 0 && json.Unmarshal(e.Error, &nested) == nil && nested.Message != "":
		return nested.Message, true
	case len(e.Error) > 0 && json.Unmarshal(e.Error, &flat) == nil && flat != "":
		return flat, true
	case e.Message != "":
		return e.Message, true
	case e.Detail != nil:
		return fmt.Sprint(e.Detail), true
	}
	return strings.TrimSpace(snippet(raw, 200)), false
}

func snippet(b []byte, n int) string {
	if len(b) > n {
		b = b[:n]
	}
	return string(b)
}
