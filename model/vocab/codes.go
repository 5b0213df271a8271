package vocab

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
