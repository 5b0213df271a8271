package vocab

import (
	"context"
	"errors"
	"fmt"
	"strings"
)

// The failures either model client can meet, for errors.Is: each client's typed errors match
// them, so that one errors.Is recognises a missing model or a timeout whichever provider
// answered. This package is their one owner: the clients and their callers name them here.
var (
	// ErrModelNotFound: the server does not have the model (HTTP 404).
	ErrModelNotFound = errors.New("model not found")
	// ErrCapability: the model lacks what the request needs, e.g. tools or thinking (HTTP
	// 400 "… does not support …").
	ErrCapability = errors.New("model lacks a capability")
	// ErrUnauthorized: the server, or a proxy in front of it, wants a token or refused the
	// one sent (HTTP 401 or 403).
	ErrUnauthorized = errors.New("the server wants a token")
	// ErrIncompleteStream: the stream ended (EOF or a broken connection) before its end.
	ErrIncompleteStream = errors.New("stream ended before done")
	// ErrLineTooLong: a line of the stream exceeded the maximum line size.
	ErrLineTooLong = errors.New("line too long")
	// ErrMalformedLine: a line, or an event's data, was not the JSON expected.
	ErrMalformedLine = errors.New("malformed line")
	// ErrFirstByteTimeout: no response within the first-byte timeout.
	ErrFirstByteTimeout = errors.New("first-byte timeout")
	// ErrIdleTimeout: the answer did not grow (no text, thinking or tool call) within the
	// idle timeout mid-stream, whatever else arrived.
	ErrIdleTimeout = errors.New("idle timeout")
	// ErrAnswerTooLong: the answer (its text, thinking and tool calls) passed the client's
	// answer size limit; the stream was cut there. An *AnswerTooLongError.
	ErrAnswerTooLong = errors.New("answer too long")
	// ErrBusy: the server is overloaded (HTTP 503, or 429 from an OpenAI-compatible one), after
	// the retries.
	ErrBusy = errors.New("the server is busy")
	// ErrStream: the server reported an error inside the stream of its answer.
	ErrStream = errors.New("the server reported an error in the stream")
)

// TimeoutIs is the Is method of a client's timeout error: it matches ErrFirstByteTimeout
// (firstByte) or ErrIdleTimeout, and context.DeadlineExceeded.
func TimeoutIs(firstByte bool, target error) bool {
	switch target {
	case ErrFirstByteTimeout:
		return firstByte
	case ErrIdleTimeout:
		return !firstByte
	case context.DeadlineExceeded:
		return true
	}
	return false
}

// FirstByteAdvice names the flag and the setting that change the chat's first-byte
// timeout; it ends the message of a chat that timed out waiting for its first byte.
const FirstByteAdvice = "try again, or allow longer with `prototyper run --first-byte-timeout 10m` or the first-byte timeout in the settings"

// AnswerTooLongError is an answer cut at the client's answer size limit: the text that fit
// was delivered, its tool calls never are. Its sentence says the same of any server.
type AnswerTooLongError struct {
	Limit int // bytes
}

func (e *AnswerTooLongError) Error() string {
	return fmt.Sprintf("the model's answer passed %s, the most one answer may hold, and was cut there (what came before is kept) — ask for a shorter answer or a smaller step, or raise the answer size limit (`prototyper run --max-answer-size`, or the largest answer kept in the settings)", FormatBytes(int64(e.Limit)))
}
func (e *AnswerTooLongError) Is(target error) bool { return target == ErrAnswerTooLong }

// FormatBytes writes n in B, KiB, MiB or GiB.
func FormatBytes(n int64) string {
	const unit = 1024
	if n < unit {
		return fmt.Sprintf("%d B", n)
	}
	div, exp := int64(unit), 0
	for m := n / unit; m >= unit && exp < 3; m /= unit {
		div *= unit
		exp++
	}
	v := float64(n) / float64(div)
	s := fmt.Sprintf("%.1f", v)
	s = strings.TrimSuffix(s, ".0")
	return s + " " + [...]string{"KiB", "MiB", "GiB", "TiB"}[exp]
}
