// Package httpstream holds what the two model clients, model/ollama and
// model/openai, share about one HTTP request whose answer is read as it arrives: the
// first-byte and idle timers that end it ([Send], [Stream]), the retrying before its first
// byte that honours a server's Retry-After ([Do]), and the tests that tell a refused
// connection, a web page or an error status apart.
//
// It also keeps what a server could do to the user from the client's side: the key of the
// Authorization header is masked in everything the server sends ([Hidden]), a redirect to
// another origin is not followed ([RedirectError]), an answer is kept only up to a size
// ([Budget]), and the idle timer is re-armed only by what makes the answer grow
// ([Stream.Alive]), never by bytes that keep a connection open.
//
// Each client keeps its own error types and sentences: this package ends a request with
// the timeout errors it is given, and says which kind of failure happened
// ([TransportError]) for the client to explain ([Unanswered]); the one sentence of a network
// failure ([NetworkError]) names the client's server and what to check.
package httpstream

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
)

// Request is one request of a model client and the limits of its answer.
type Request struct {
	Method, URL string
	Body        []byte // JSON, or nil
	Accept      string
	// Authorization is the Authorization header's value ("" sends none). Its value, and its
	// credentials without the scheme, are masked in the answer's body and its error text.
	Authorization string
	// FirstByte bounds the wait for the answer to begin (0: no bound); when it passes, the
	// request ends with FirstByteTimeout as its cause.
	FirstByte        time.Duration
	FirstByteTimeout error
	// Idle bounds the time an answer that has begun may go without growing (0: no bound);
	// when it passes, the request ends with IdleTimeout as its cause. See [Stream.Alive].
	Idle        time.Duration
	IdleTimeout error
}

// TransportError is a request that got no answer at all. Refused is true when nothing
// listens at the address (the connection was refused).
type TransportError struct {
	Err     error
	Refused bool
}

func (e *TransportError) Error() string { return e.Err.Error() }
func (e *TransportError) Unwrap() error { return e.Err }

// Configured returns a copy of c with opts applied on top of its own: the With of both
// clients, whose copy shares c's connections.
func Configured[C any, O ~func(*C)](c *C, opts []O) *C {
	cp := *c
	for _, o := range opts {
		o(&cp)
	}
	return &cp
}

// NetworkError is the sentence a client returns for a request that failed on the network
// other than by a refused connection, before any answer: who was asked (Server, e.g.
// "Ollama"), at which address, and what to check.
type NetworkError struct {
	Server, URL, Check string
	Err                error
}

func (e *NetworkError) Error() string {
	return fmt.Sprintf("cannot reach %s at %s (%v) — check that %s", e.Server, e.URL, e.Err, e.Check)
}
func (e *NetworkError) Unwrap() error { return e.Err }

// Send makes one attempt at req with hc and returns the answer, whatever its status, with
// the stream that reads it (whose Body is the answer's). An error is a [backoff.Permanent]
// one (ctx's cause, the first-byte timeout, a request that cannot be built), or a
// [*TransportError], which may be retried.
//
// A redirect is followed only to the same origin (scheme, host and port): to another one it
// would carry the key and the request's body (the conversation) to a server the user did not
// name, so it ends the request with a [*RedirectError], which is permanent.
func Send(ctx context.Context, hc *http.Client, req Request) (*http.Response, *Stream, error) {
	reqCtx, cancel := context.WithCancelCause(ctx)
	s := &Stream{ctx: ctx, reqCtx: reqCtx, cancel: cancel, idleDur: req.Idle,
		firstErr: req.FirstByteTimeout, idleErr: req.IdleTimeout, secrets: secretsOf(req.Authorization)}
	wait := req.FirstByte
	if wait <= 0 { // no bound: the timer is armed for ever
		wait = math.MaxInt64
	}
	s.first = time.AfterFunc(wait, func() { cancel(req.FirstByteTimeout) })

	var rd io.Reader
	if req.Body != nil {
		rd = bytes.NewReader(req.Body)
	}
	hr, err := http.NewRequestWithContext(reqCtx, req.Method, req.URL, rd)
	if err != nil {
		s.Close()
		return nil, nil, backoff.Permanent(err)
	}
	if req.Body != nil {
		hr.Header.Set("Content-Type", "application/json")
	}
	hr.Header.Set("Accept", req.Accept)
	hr.Header.Set("User-Agent", "prototyper")
	if req.Authorization != "" {
		hr.Header.Set("Authorization", req.Authorization)
	}
	resp, err := sameOrigin(hc, s.secrets).Do(hr)
	if err != nil {
		timeout := s.timedOut()
		s.Close()
		var re *RedirectError
		switch {
		case ctx.Err() != nil:
			return nil, nil, backoff.Permanent(context.Cause(ctx))
		case timeout != nil:
			return nil, nil, backoff.Permanent(timeout)
		case errors.As(err, &re):
			return nil, nil, backoff.Permanent(re)
		}
		return nil, nil, &TransportError{Err: err, Refused: refused(err)}
	}
	s.Body = newMaskingReader(resp.Body, s.secrets)
	return resp, s, nil
}

// RedirectError is a request the server sent to another origin, which was not followed.
type RedirectError struct {
	From, To string // the address asked and the one the server sent the request to
}

func (e *RedirectError) Error() string {
	return fmt.Sprintf("the server at %s sent the request on to another address, %s, which was not followed: the conversation and any key go only to the address you chose — if %s is the server, use it as the address", e.From, e.To, e.To)
}

// sameOrigin is hc (sharing its connections) following redirects within the origin of the
// first request only, at most 10 as net/http does. The address redirected to is the
// server's text: the key is masked in it.
func sameOrigin(hc *http.Client, s secrets) *http.Client {
	cp := *hc
	next := hc.CheckRedirect
	cp.CheckRedirect = func(r *http.Request, via []*http.Request) error {
		first := via[0].URL
		if r.URL.Scheme != first.Scheme || r.URL.Host != first.Host {
			return &RedirectError{From: origin(first), To: s.mask(r.URL.Redacted())}
		}
		if next != nil {
			return next(r, via)
		}
		if len(via) >= 10 {
			return errors.New("stopped after 10 redirects")
		}
		return nil
	}
	return &cp
}

// origin is the scheme and host of u: what a user named as the server's address.
func origin(u *url.URL) string { return u.Scheme + "://" + u.Host }

// Unanswered turns the error of [Send] for a request that got no answer into the client's
// own: refused(cause) when nothing listens at the address, network(cause) for another
// network failure. Any other error is returned as it is.
func Unanswered(err error, refused, network func(cause error) error) error {
	var te *TransportError
	switch {
	case errors.As(err, &te) && te.Refused:
		return refused(te.Err)
	case errors.As(err, &te):
		return network(te.Err)
	}
	return err
}

// refused reports whether err is a failure to connect at all.
func refused(err error) bool {
	if errors.Is(err, syscall.ECONNREFUSED) {
		return true
	}
	var op *net.OpError
	return errors.As(err, &op) && op.Op == "dial"
}

// Stream is an answer being read: its body, with the key masked in it, and the timers
// that end it.
type Stream struct {
	Body              io.ReadCloser
	ctx, reqCtx       context.Context // the caller's, and the request's
	cancel            context.CancelCauseFunc
	first, idle       *time.Timer
	idleDur           time.Duration
	firstErr, idleErr error
	begun             bool
	secrets           secrets
}

// NewStream returns a stream of body that no timer ends, for a benchmark of a decoder.
func NewStream(ctx context.Context, body io.ReadCloser) *Stream {
	return &Stream{Body: body, ctx: ctx, reqCtx: ctx, cancel: func(error) {}, first: time.NewTimer(math.MaxInt64)}
}

// Begin stops the first-byte timer and arms the idle timer: the answer has begun.
func (s *Stream) Begin() {
	if !s.begun {
		s.begun = true
		s.first.Stop()
		s.Alive()
	}
}

// Alive re-arms the idle timer: the answer grew. Only what a user would see grow (text,
// thinking, a tool call's bytes) may call it: a server that sends keep-alives, empty events
// or blank lines, however often, still ends at the idle timeout.
func (s *Stream) Alive() {
	if s.idleDur <= 0 {
		return
	}
	if s.idle == nil {
		timeout := s.idleErr
		s.idle = time.AfterFunc(s.idleDur, func() { s.cancel(timeout) })
		return
	}
	s.idle.Reset(s.idleDur)
}

// LineArrived is [Stream.Begin] and [Stream.Alive]: for an answer whose every line is a
// part of it (a pull's progress).
func (s *Stream) LineArrived() {
	s.Begin()
	s.Alive()
}

// Mask returns text from the server with the key masked: a message decoded from the body
// (an escape in JSON can spell a key the body's masking did not see).
func (s *Stream) Mask(text string) string { return s.secrets.mask(text) }

// Why explains an error of reading the body: the caller's cancellation, a timeout, or err
// itself.
func (s *Stream) Why(err error) error {
	if s.ctx.Err() != nil {
		return context.Cause(s.ctx)
	}
	if timeout := s.timedOut(); timeout != nil {
		return timeout
	}
	return err
}

// timedOut returns the timeout error that ended the request, or nil.
func (s *Stream) timedOut() error {
	cause := context.Cause(s.reqCtx)
	if cause != nil && (cause == s.firstErr || cause == s.idleErr) {
		return cause
	}
	return nil
}

// ReadError reads up to 1 MiB of an error answer's body, the key masked in it however short,
// and closes the stream.
func (s *Stream) ReadError() []byte {
	raw, _ := io.ReadAll(io.LimitReader(s.Body, 1<<20))
	s.Close()
	return []byte(s.Mask(string(raw)))
}

// Close stops the timers, closes the body and ends the request.
func (s *Stream) Close() {
	s.first.Stop()
	if s.idle != nil {
		s.idle.Stop()
	}
	if s.Body != nil {
		s.Body.Close()
	}
	s.cancel(nil)
}

// HTMLType reports whether an answer's Content-Type is an HTML page's: a web server or a
// proxy, never a model server's API.
func HTMLType(h http.Header) bool {
	ct := strings.ToLower(h.Get("Content-Type"))
	return strings.HasPrefix(ct, "text/html") || strings.HasPrefix(ct, "application/xhtml")
}

// StatusText is the message of an error answer: the server's, or the status's name when it
// sent none.
func StatusText(status int, message string) string {
	if message == "" {
		return http.StatusText(status)
	}
	return message
}

// Unauthorized reports whether status says that a token is wanted or was refused (401,
// 403), whoever answered: the server or a proxy in front of it.
func Unauthorized(status int) bool {
	return status == http.StatusUnauthorized || status == http.StatusForbidden
}

// Unsupported reports whether an answer says that the model lacks what the request needs:
// HTTP 400 "… does not support …" or "… not supported".
func Unsupported(status int, message string) bool {
	m := strings.ToLower(message)
	return status == http.StatusBadRequest && (strings.Contains(m, "does not support") || strings.Contains(m, "not supported"))
}

// RetryableStatus reports whether the same request may succeed later: the server failed
// (5xx) or asked to slow down (429).
func RetryableStatus(status int) bool {
	return status >= 500 || status == http.StatusTooManyRequests
}

// ParseRetryAfter reads a Retry-After header, delay-seconds or an HTTP date, as a delay
// from now; 0 when absent, malformed or past.
func ParseRetryAfter(v string, now time.Time) time.Duration {
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
