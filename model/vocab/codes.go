package vocab

import (
	"context"
	"errors"
)

// The codes of a failed model request: the kind of a failure, as the `error` event names it
// for the window to pick its sentence by. Each client's Code function says which one an
// error of its is.
const (
	CodeCanceled          = "canceled"
	CodeNotRunning        = "not_running"
	CodeModelNotFound     = "model_not_found"
	CodeCapabilityMissing = "capability_missing"
	CodeBusy              = "busy"
	CodeHTTPError         = "http_error"
	CodeStreamError       = "stream_error"
	CodeIncompleteStream  = "incomplete_stream"
	CodeLineTooLong       = "line_too_long"
	CodeMalformedLine     = "malformed_line"
	CodeNotOllama         = "not_ollama"
	CodeUnauthorized      = "unauthorized"
	CodeFirstByteTimeout  = "first_byte_timeout"
	CodeIdleTimeout       = "idle_timeout"
	CodeNetwork           = "network"
	CodeAnswerTooLong     = "answer_too_long"
	CodeRedirected        = "redirected"
	CodeUnknown           = "unknown"
	// CodeNotOpenAI: the address does not serve the OpenAI-compatible API.
	CodeNotOpenAI = "not_openai"
)

// sharedCodes are the codes of a cancellation and of the failures either client can meet, in
// the order they are asked.
var sharedCodes = []struct {
	err  error
	code string
}{
	{context.Canceled, CodeCanceled}, {ErrUnauthorized, CodeUnauthorized}, {ErrModelNotFound, CodeModelNotFound},
	{ErrCapability, CodeCapabilityMissing}, {ErrFirstByteTimeout, CodeFirstByteTimeout}, {ErrIdleTimeout, CodeIdleTimeout},
	{ErrIncompleteStream, CodeIncompleteStream}, {ErrLineTooLong, CodeLineTooLong}, {ErrMalformedLine, CodeMalformedLine},
	{ErrAnswerTooLong, CodeAnswerTooLong}, {ErrBusy, CodeBusy}, {ErrStream, CodeStreamError},
}

// SharedCode is the code of err when it is a cancellation or one of the failures either client
// can meet ([ErrModelNotFound] and the others of this package), "" otherwise. Each client's
// Code asks it first, then names its own failures.
func SharedCode(err error) string {
	for _, c := range sharedCodes {
		if errors.Is(err, c.err) {
			return c.code
		}
	}
	return ""
}
