package vocab

import "time"

// The limits and timeouts both model clients start from (each client's options change them).
const (
	// DefaultMaxLineSize bounds one line (or event) of a stream, in bytes.
	DefaultMaxLineSize = 16 << 20
	// DefaultMaxAnswerSize bounds one answer's text, thinking and tool calls together, in
	// bytes: far above any real answer, far below what would exhaust the memory or the disk.
	DefaultMaxAnswerSize    = 8 << 20
	DefaultFirstByteTimeout = 5 * time.Minute
	DefaultIdleTimeout      = 60 * time.Second
	// DefaultMetadataTimeout bounds the wait for a question that loads no model (a model's
	// details, the model list, the version): a server that says nothing for this long is
	// stuck, and waiting the chat's first-byte timeout for it would only delay the chat's own
	// wait.
	DefaultMetadataTimeout  = 15 * time.Second
	DefaultRetryAttempts    = 5
	DefaultRetryMaxElapsed  = 30 * time.Second
	DefaultRetryInitial     = 500 * time.Millisecond
	DefaultRetryMaxInterval = 5 * time.Second
)
