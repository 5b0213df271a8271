// Package modelcheck tells whether a model works on this machine: a short suite of cases, each
// a real round trip through the agent loop ([agentloop.Wire]) with the real tools, in a scratch
// workspace and a scratch store of its own, approval automatic. The cases are the things an
// agent must do: create a file, edit one place in a file, read then answer from what was read,
// make two calls in one turn, recover from a tool's error, and stop when done.
//
// # Basics
//
//	rep, err := modelcheck.Run(ctx, server, modelcheck.Options{Model: "qwen3:4b"})
//	fmt.Printf("%d/%d, %.0f tok/s\n", rep.Passed, rep.Total, rep.AnswerTokensPerSec)
//
// [Run] measures, per case and in sum: passed, calls made and calls well formed (native, or
// written as text and read by the loop: origin text), time to first token, prompt and answer
// tokens per second, the context used, and (after the cases, through [Options.Residency]) the
// memory the loaded model takes (Ollama's /api/ps). [Report.Record] is what the store keeps ([store.ModelCheck]),
// per model, quantisation and context size.
//
// # Bounds
//
// Each case has at most [MaxSteps] model calls of at most [NumPredict] tokens each and ends
// at [Options.CaseTimeout]: the suite ends within six of those however the model behaves.
//
// # Caveats
//
// Prompt tokens per second is the prompt tokens of a case over its waits for a first token,
// the model's load left out: the server's own prompt evaluation time is not read. A call is
// counted malformed when the loop refused its arguments, or when an answer holds call-shaped
// text the loop could not read as a call.
package modelcheck
