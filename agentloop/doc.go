// Package agentloop is Prototyper's agent: it turns a user's prompt into a run of turns —
// stream the model's thinking and answer, execute the tool calls it asks for, send the
// results back, repeat until it answers — with every step emitted as an [events.Event],
// every message persisted, and the user in control.
//
// # Basics
//
// One [Agent] serves the whole app. [Agent.Send] starts a run of a chat in the background
// (or queues the message when the chat is busy), [Agent.Stop] cancels it, [Agent.Decide]
// answers a tool call that waits for approval, [Agent.AnswerSummary] an offer to summarize
// older messages that no longer fit (offer.go), [Agent.Shutdown] stops everything when the
// window closes. [Agent.RunOnce] runs synchronously; `prototyper run` uses it, and its answers
// to a paused chat (RunOptions.Decide, Summarize) take the window's path (decide.go).
//
//	agent := agentloop.NewAgent(agentloop.Config{Model: m, Store: db, Emitter: bridge, Tools: factory})
//	chatID, err := agent.Send(ctx, "", "write hello.txt")
//
// The agent reaches its edges through small interfaces: a [model.Model] that streams a turn, a
// [Toolbox] that lists and runs tools, a [Store] that persists, and an [Emitter] that takes
// events. [model.Server] (Ollama or an OpenAI-compatible server), [WorkspaceTools] and the
// store's *store.DB are the real ones.
//
// # A run
//
// Each chat has one phase at a time (events.Phase): submitted when the user sent, streaming
// while tokens arrive, tools while calls execute, continuing when results went back and no
// token came yet, awaiting_approval when paused on the user's decision, awaiting_summary when
// paused on the user's answer to a summary offer, idle otherwise. Every
// change is emitted. One run per chat at a time; runs of different chats are independent:
// each chat has its own lock, and the store is never written under the agent-wide one, so
// one chat's slow disk write never holds up another chat.
//
// A run ends with run.finished and a stop reason: completed, max_steps (a cap on model
// calls, [DefaultMaxSteps]), aborted, error, awaiting_approval, awaiting_summary, loop (the
// same call or cycle of calls again and again, loopguard.go) or length (an answer still cut
// by the length limit after three continuations). standins.go holds the texts the model reads
// in place of a result; loopguard.go the notice of a loop.
//
// A message is checked before anything of it is stored: a model is chosen, the chat's
// workspace opens, the server has the model, the UserPromptSubmit hooks let it through, and
// it fits the model's context ([Budget], [EstimateTokens]). A refused message leaves no chat
// behind ([Agent.SendNew] creates the chat only once the message is accepted), and a chat
// that RunOnce created is deleted again when the model never answered it.
//
// A model request whose first byte takes more than [LoadingNotice], or whose model the server
// does not list as loaded (/api/ps, asked just before), is announced with model.loading, and model.loaded (with the wait) when the answer starts. The wait is bounded
// by the first-byte timeout (Config.FirstByteTimeout, RunOptions.FirstByteTimeout); a server
// that does not answer the model's details fails the run at once instead of adding a wait.
//
// # Tool calls
//
// The calls of one assistant message are a batch. Each call is checked (unknown tool, JSON
// Schema), passed through the PreToolUse [Hooks], then the approval policy (auto, ask,
// deny). If any call needs the user's decision, nothing of the batch runs: the run pauses,
// its state is persisted (so it resumes after a restart) and the chat is not busy. Calls run
// in parallel when every tool of the batch is parallel-safe, one by one otherwise; their
// results go back to the model in call order, as tool messages next to their call.
//
// Every call gets an id of its own in the chat (a server that repeats ids gets derived
// ones), so each has its own record and its own result next to it. Arguments that are no
// JSON object are stored and sent back as {} and the call gets an error result that shows
// what was sent. Stop never waits for a tool: one that ignores the cancellation for more
// than a moment is left running in the background, its call recorded as stopped while
// running, and nothing it does afterwards reaches the run.
//
// A message sent while a run is busy is not raced: it waits in the chat's queue and is
// injected after the current tool call (the rest of the batch is skipped), or after the
// model's turn, announced by a message.started with trigger steering. A message that comes
// after the run's last safe point starts a run of its own (trigger follow_up).
//
// # Context budget
//
// num_ctx is the model's context length capped by a setting ([DefaultContextCap]) and, with no
// cap set, by the memory free for it; before each request the prompt's tokens are estimated
// (refined by the server's prompt_eval_count) and, over budget, the older turns are offered
// for a summary (olderTurns ask, offer.go), summarized (always) or left out with a
// context.truncated event (never, or the user's leave_out) — never the system prompt, the
// latest user message, or half of a tool call and its result. Ollama never truncates
// silently.
package agentloop
