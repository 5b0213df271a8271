// Package model is the model layer: what answers a chat, seen from the agent loop. The loop
// asks a [Model] for one streamed turn ([Model.Chat] with a [Request], one [DeltaFunc] call
// per streamed item, a [Turn] at the end); [Ollama] and [OpenAI] adapt the two clients
// (packages ollama and openai) to it, and [Server] is the endpoint switch: the model of the
// server the user chose, re-pointed when the provider, the address or the key changes.
//
// # Rooms
//
//   - model/ollama: the native Ollama client (/api/chat, /api/tags, /api/show, /api/pull).
//   - model/openai: the client of OpenAI-compatible servers (/v1/chat/completions).
//   - model/internal/httpstream: what the two clients share about one streamed request.
//   - model/managed: the `ollama serve` the window starts and stops.
//   - model/vocab: the words the clients, the loop and the store share (error codes, thinking
//     levels, the reasoning-tag splitter, tool-call ids); it imports only the standard library.
//
// # Errors
//
// A client error reaches the loop as a [ClassifiedError]: its code names the kind of failure
// for the `error` event, and [Fatal] says whether a chat request would fail the same way.
//
// Package model imports the clients and the store's and the tools' types; it never imports
// the agent loop, which imports it.
package model
