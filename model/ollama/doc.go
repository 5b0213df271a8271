// Package ollama is Prototyper's native client for a local Ollama server: it speaks the
// server's own NDJSON API (/api/chat, /api/tags, /api/show, /api/ps, /api/generate to load a
// model, /api/pull, /api/version), never
// the OpenAI-compatible endpoint.
//
// # Basics
//
// Resolve the server with [ResolveHost] (the --ollama flag, else OLLAMA_HOST read the way
// Ollama's own client reads it, else http://127.0.0.1:11434), build a [Client] with [New],
// and stream a turn with [Client.Chat]. Chat calls its [EventFunc] once per streamed item —
// a thinking delta, a content delta, a retry — and returns a [Result] holding the finished
// assistant [Message], the done reason and the [Metrics] of the final chunk.
//
// # Guarantees
//
//   - A stream is finished only by a chunk with done:true. A stream that ends any other way
//     (EOF, a reset, an idle timeout, an {"error":…} line) is an error, and the tool calls it
//     carried are never returned as executable: [EventToolCalls] is emitted, and
//     Result.Message.ToolCalls is filled, only once done:true has arrived.
//   - Every line is read in full up to a limit (16 MiB by default, [WithMaxLineSize]); a
//     longer line is a [vocab.ErrLineTooLong] error, never a silent stop. A line that is not JSON
//     is a [vocab.ErrMalformedLine] error naming the line number.
//   - One answer's text, thinking and tool calls together are kept up to a size (8 MiB by
//     default, [WithMaxAnswerSize]); past it the stream is cut between two characters with an
//     [vocab.ErrAnswerTooLong] error, and what fit is the partial result.
//   - Requests are retried with exponential backoff only before the first byte of a response
//     arrives: connection refused and 5xx answers (503's Retry-After is honoured), never 4xx.
//     Each retry is reported ([EventRetry] in Chat, [WithRetryNotify] elsewhere).
//   - There is no whole-request timeout: a first-byte timeout (5 min by default, a model can
//     take that long to load; [WithFirstByteTimeout], or per run [Client.With]) and an idle
//     timeout (60 s) that only a line adding to the answer re-arms: keep-alives do not. Questions that load no model (/api/show, /api/tags,
//     /api/version) have a short first-byte timeout of their own (15 s,
//     [WithMetadataTimeout]): a server silent that long is stuck, and they never add a
//     model-loading wait in front of the chat's. Cancelling the context closes the
//     connection at once.
//   - Chat reports the start of an answer ([EventStarted]) apart from its deltas, so that a
//     caller can say "waiting for the model to load" until it arrives.
//   - A server that is not Ollama (an HTML page, a 404 without Ollama's {"error":…}) is a
//     [NotOllamaError] that says to check the address, never a missing model.
//   - The Authorization value ([WithAuthorization]) is masked in all the server sends; a
//     redirect to another origin is not followed (code redirected).
//
// # Errors
//
// Errors can be matched with [errors.Is] against the sentinels ([ErrNotRunning],
// [vocab.ErrModelNotFound], [vocab.ErrCapability], [vocab.ErrBusy], [vocab.ErrStream], [vocab.ErrIncompleteStream],
// [vocab.ErrLineTooLong], [vocab.ErrMalformedLine], [vocab.ErrFirstByteTimeout], [vocab.ErrIdleTimeout],
// [vocab.ErrAnswerTooLong], [ErrNotOllama], and for a pull [ErrRegistryUnreachable]) or with
// [errors.As] against the typed errors that carry details ([StatusError], [StreamError], …).
// Their Error() is one sentence that says what the user can do, and names only commands,
// flags and settings, never this package's API. [Retryable] and [Code] classify an
// error for the agent's `error` event.
package ollama
