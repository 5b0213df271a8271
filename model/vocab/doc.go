// Package vocab holds the words that the model clients (model/ollama, model/openai), the
// agent loop and the store share, each defined once: the codes of a failed request
// ([CodeNotRunning] and the others, as the `error` event names them), the failures either
// client can meet ([ErrModelNotFound], [ErrFirstByteTimeout], …), the limits and timeouts
// both clients start from, the thinking levels ([ParseThinkLevel]), the splitter of the
// reasoning a model writes inline ([ReasoningSplitter]), the ids of tool calls
// ([NewCallID]) and what JSON's escapes stand for ([JSONEscape], [JSONUnicodeEscape]).
//
// It imports only the standard library, so that anyone may import it: a client never
// imports the other client, nor the store a client.
package vocab
