// Package ollamatest runs a real Ollama server (v0.11.4) in tests, serving tiny generated models
// whose greedy output is a script: a test knows exactly what the model will say, and still
// meets every quirk of the real server — thinking split out by its template parser, tool calls
// parsed from model output and sent whole, 404 and 400 bodies, capability checks.
//
// # Basics
//
// One server serves a whole test binary. In the package's TestMain:
//
//	func TestMain(m *testing.M) {
//		os.Exit(ollamatest.Main(m, ollamatest.Model{Name: "scripted", Scripts: ollamatest.Scripts{
//			// first turn: think, then call a tool
//			"U": slices.Concat(
//				ollamatest.Think("I should", " write the file."),
//				ollamatest.ToolCall("write_file", map[string]any{"path": "hello.txt", "content": "hello"}),
//			),
//			// after the tool's result: think, then answer in three chunks
//			"UAT": slices.Concat(ollamatest.Think("Done."), []string{"I wrote", " hello.txt", "."}),
//		}}))
//	}
//
// ([WriteHello] returns these scripts) and in a test, [Get] returns the server ([Server.URL] is its base URL):
//
//	srv := ollamatest.Get(t) // skips (bare go test) or fails (make test) without the binary
//	resp, err := http.Post(srv.URL()+"/api/chat", "application/json", body)
//
// With think:true and the tool write_file in the request, the first turn streams the thinking
// "I should", " write the file." as two chunks, then one chunk holding the whole tool call, then
// done:true. The server parses tool calls only for tools named in the request.
//
// # Scripts
//
// [Scripts] maps a marker to the pieces the model emits, one token each, then end of stream.
// The marker is the trail of the conversation's roles, one letter per message: U user,
// A assistant, T tool, S system. "U" answers the first user message; "UAT" answers after one
// tool call and its result; "UATT" after two results; "SU" is the first turn behind a system
// prompt. The server merges consecutive messages of the same role (except tool messages), so
// "UU" is never seen. A trail without a script gets the [Fallback] script "*" — a model whose
// only script is "*" answers every turn the same way, e.g. always calls a tool — and without
// one it answers [Unscripted].
//
// A model with [Model.Vision] has the vision capability (its GGUF holds
// llama.vision.block_count, the key the server checks), and its trail gets an I for each
// image of a message: "UI" answers a first message with one image, "SUII" one with two behind
// a system prompt. It has no projector, so it sees no pixels (the server hands the images to
// the runner, which leaves them out), but a script that says how many it was shown proves
// they came through the server in the message a test meant.
//
// [Think] and [ToolCall] build the usual pieces; [slices.Concat] joins them. Other shapes:
//   - two tool calls in one message: slices.Concat(ToolCall(a...), ToolCall(b...));
//   - invalid arguments, then a corrected call: "U" calls with bad arguments, "UAT" calls
//     again with good ones, "UATAT" answers;
//   - a long answer for num_predict: many pieces, cut by the request's options;
//   - malformed tool JSON: ToolCall with a string as its arguments, inserted verbatim.
//
// A reply to a think:true request should open with [Think]: Ollama v0.11.4 repeats the first
// content piece of a reply that does not ("I wrote", then "I wrote hello.txt").
//
// # How a scripted model works
//
// The model is a GGUF file ([WriteGGUF]) of architecture llama with one block whose attention
// and feed-forward weights are zero and whose norms are one, so the hidden state is the
// current token's embedding. Embeddings are one-hot, so the next token is a function of the
// current token alone: output.weight holds a single one per token, pointing at its successor.
// With temperature 0 the model follows the chain marker → piece → … → EOS. The vocabulary is
// <unk>, <s>, </s>, the 256 byte tokens (so any prompt tokenizes), the markers, then every
// piece as a user-defined token (matched whole in a prompt, emitted verbatim).
//
// The chat template ([Model.Template]) renders the conversation and ends with the marker token
// "[[UAT]]"; its last token picks the script. It references .Tools (the tools capability),
// renders <think>{{ .Thinking }}</think> inside the messages loop (the server infers the
// thinking tags from it) and <tool_call>{…}</tool_call> after {{ if .ToolCalls }} (the server
// parses that tag in the output into message.tool_calls).
//
// Token texts must be unique, and a token has one successor, so a piece used twice cannot be
// one token twice. The first use keeps the piece whole; a later use is re-segmented into parts
// still free (a second "<think>" becomes "<think" + ">"). The text is unchanged and the
// server's tag and tool-call parsers never notice, but a repeated piece of plain thinking or
// content then streams as two chunks; a repeated piece too short to split gets a leading space.
// [Segment] tells what the model really emits.
//
// # Failing mid-answer
//
// Two ways, both the real server's own:
//   - the server cuts a reply whose token repeats more than 30 times (v0.11.4's
//     llm/server.go): a script that ends in 40 copies of a one-character piece (they become
//     "\n", " \n", "  \n", …, the same once trimmed) streams what comes before, then the stream
//     ends without done:true on /api/chat, and without finish_reason or [DONE] on /v1;
//   - [Server.KillRunner] kills the model's runner, as a crash does: /api/chat then sends
//     {"error":"an error was encountered while running the model: unexpected EOF"}, and /v1
//     (which loses that text) an empty chunk before the end.
//
// # Caveats
//
// The server runs with OLLAMA_DEBUG=1, so its log ([Server.Logs], printed by [Get] when a test
// fails) holds each rendered prompt: look there first when a reply is [Unscripted]. Models stay
// loaded for the whole binary, each in its own runner, on one thread (more only spin on a busy
// machine); a model serves one request at a time, so parallel tests on one model queue.
//
// Start takes about 0.4 s for four models on a 2-core machine ([Server.Timings]). The server and
// its runners live in their own process group, killed by Stop and also when the test binary
// dies without cleanup (a -timeout panic): a supervising shell holds a pipe from the test
// binary and kills the group when it closes.
package ollamatest
