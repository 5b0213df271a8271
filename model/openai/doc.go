// Package openai is Prototyper's client for servers that speak the OpenAI-compatible chat
// API: vLLM, llama.cpp's server, LM Studio, Ollama's own /v1 endpoint, hosted APIs. It streams
// /v1/chat/completions as server-sent events and lists /v1/models; it knows nothing of the
// agent loop; package model adapts it ([prototyper/model.OpenAI]) the way it adapts the native Ollama
// client.
//
// # Basics
//
// Resolve the base URL with [ParseBaseURL] (a URL without a path gets /v1), build a [Client]
// with [New] — [WithAPIKey] adds an Authorization: Bearer header, never logged nor written
// anywhere — and stream a turn with [Client.Chat]. Chat calls its [EventFunc] once per
// streamed item (the start of the answer, a thinking delta, a content delta, a retry) and
// returns a [Result]: the whole text, the thinking, the tool calls and the token usage.
//
// # Guarantees
//
//   - Tool calls arrive as fragments (an id and a name, then pieces of the arguments' JSON),
//     each tagged with its index; they are assembled by index, and a fragment with a new id
//     at a used index starts a new call (some servers give every call index 0). Arguments
//     that are not a JSON object reach the caller as a JSON string, so that the tool's own
//     validation says what is wrong.
//   - Thinking arrives in delta.reasoning_content (vLLM, DeepSeek), delta.reasoning (Ollama,
//     OpenRouter) or inside the content between <think> and </think> at its start (servers
//     that do not split it); all three become thinking deltas, never answer text.
//   - A stream is finished by data: [DONE] or by a choice's finish_reason. A stream that ends
//     before either (EOF, a reset, an idle timeout, an error event) is an error, and the tool
//     calls it carried are never returned.
//   - Requests are retried with exponential backoff only before the first byte of an answer:
//     a refused connection, 429 and 5xx (Retry-After honoured), never another 4xx.
//   - There is no whole-request timeout: a first-byte timeout (5 min by default, a model can
//     be slow to load), an idle timeout (60 s) that only an event adding to the answer re-arms
//     (keep-alives do not), and a short first-byte timeout for /v1/models (15 s). Cancelling
//     the context closes the connection at once.
//   - One answer's text, thinking and tool calls are kept up to a size (8 MiB by default,
//     [WithMaxAnswerSize]), an event's data lines up to the line limit; past either the
//     stream is cut with an error and what fit is the partial result.
//   - The key is masked in all the server sends; a redirect to another origin is not
//     followed.
//
// # Errors
//
// The sentinels ([ErrUnreachable], [vocab.ErrUnauthorized], [vocab.ErrModelNotFound], [vocab.ErrCapability],
// [vocab.ErrBusy], [vocab.ErrStream], [vocab.ErrIncompleteStream], [vocab.ErrLineTooLong], [vocab.ErrMalformedLine],
// [vocab.ErrFirstByteTimeout], [vocab.ErrIdleTimeout], [vocab.ErrAnswerTooLong], [ErrNotOpenAI]) match the typed errors with
// [errors.Is]. Their Error() is one sentence that says what a user can do, naming flags and
// settings, never the key. [Code] and [Retryable] classify an error for the agent's `error`
// event with the same codes as the native Ollama client, plus unauthorized and not_openai.
package openai
