package agentloop

import (
	"context"

	"prototyper/model"
	"prototyper/store"
	"prototyper/tools"
)

// DefaultContextCap caps num_ctx when the settings do not (tokens); the settings define it.
const DefaultContextCap = store.DefaultContextCap

// defaultTokensPerChar is the first guess of the estimator (about 3.5 characters a token,
// which errs on the side of too many tokens for English and code).
const defaultTokensPerChar = 1 / 3.5

// perMessageTokens covers the chat template's role markers around each message.
const perMessageTokens = 4

// estimator guesses a prompt's tokens from its characters. The server's prompt_eval_count of
// a full prompt refines the ratio; a count much smaller than the guess means the server
// reused its cache and only evaluated the tail, and teaches nothing.
type estimator struct {
	tokensPerChar float64
}

func newEstimator() *estimator { return &estimator{tokensPerChar: defaultTokensPerChar} }

func messageChars(m store.Message) int {
	n := len(m.Content) + len(m.Role) + len(m.ToolName)
	for _, c := range m.ToolCalls {
		n += len(c.Name) + len(c.Args)
	}
	return n
}

func toolChars(defs []tools.Definition) int {
	n := 0
	for _, d := range defs {
		n += len(d.Name) + len(d.Description) + len(d.Schema) + 32
	}
	return n
}

func (e *estimator) tokens(chars, messages int) int {
	return int(float64(chars)*e.tokensPerChar) + messages*perMessageTokens
}

// learn refines the ratio from a request of chars characters that the server counted as
// promptTokens.
func (e *estimator) learn(chars, messages, promptTokens int) {
	if chars <= 0 || promptTokens <= 0 {
		return
	}
	guess := e.tokens(chars, messages)
	if promptTokens < guess/2 { // the cache served most of it: not a full count
		return
	}
	r := float64(promptTokens-messages*perMessageTokens) / float64(chars)
	if r < 1.0/8 {
		r = 1.0 / 8
	}
	if r > 1.0/1.5 {
		r = 1.0 / 1.5
	}
	e.tokensPerChar = r
}

// fitResult is what fitting a prompt into the context did.
type fitResult struct {
	messages  []store.Message // what to send (system prompt first, when there is one)
	dropped   int             // messages left out
	estimated int             // tokens of what is sent
	whole     int             // tokens of the whole prompt, before anything was left out
	chars     int
}

// fitContext drops the oldest turns of history until the prompt (system + history + tool
// definitions) fits in budget tokens. It never drops the system prompt, the latest user
// message, the most recent turn, or one half of a tool call and its results: an assistant
// message with tool calls and the tool messages after it go together.
func fitContext(e *estimator, system []store.Message, history []store.Message, defs []tools.Definition, budget int) fitResult {
	fixedChars := toolChars(defs)
	for _, m := range system {
		fixedChars += messageChars(m)
	}
	// group history into units that are dropped whole
	type unit struct{ from, to int } // [from, to)
	var units []unit
	for i := 0; i < len(history); {
		j := i + 1
		if history[i].Role == store.RoleAssistant && len(history[i].ToolCalls) > 0 {
			for j < len(history) && history[j].Role == store.RoleTool {
				j++
			}
		}
		units = append(units, unit{i, j})
		i = j
	}
	lastUser := -1
	for i := len(history) - 1; i >= 0; i-- {
		if history[i].Role == store.RoleUser {
			lastUser = i
			break
		}
	}
	keep := make([]bool, len(units))
	chars, count := fixedChars, len(system)
	for i, u := range units {
		keep[i] = true
		for _, m := range history[u.from:u.to] {
			chars += messageChars(m)
		}
		count += u.to - u.from
	}
	dropped, whole := 0, e.tokens(chars, count)
	for i, u := range units {
		if e.tokens(chars, count) <= budget {
			break
		}
		if i == len(units)-1 || (lastUser >= u.from && lastUser < u.to) {
			continue
		}
		keep[i] = false
		for _, m := range history[u.from:u.to] {
			chars -= messageChars(m)
		}
		count -= u.to - u.from
		dropped += u.to - u.from
	}
	out := make([]store.Message, 0, count)
	out = append(out, system...)
	for i, u := range units {
		if keep[i] {
			out = append(out, history[u.from:u.to]...)
		}
	}
	return fitResult{messages: out, dropped: dropped, estimated: e.tokens(chars, count), whole: whole, chars: chars}
}

// numCtxFor is the context window to ask for: the model's length capped by the setting.
func numCtxFor(modelLength, capTokens int) int {
	if capTokens <= 0 {
		capTokens = DefaultContextCap
	}
	if modelLength <= 0 || modelLength > capTokens {
		return capTokens
	}
	return modelLength
}

// contextSize is the context to ask for of modelName: its trained length (0: unknown) capped
// by the settings' cap; with no cap set (0: [DefaultContextCap]), no more than what this
// machine's free memory holds for it (model.ContextFitter), with why in a sentence when that
// chose it. A cap the user set, whatever its value, is used as set.
func (a *Agent) contextSize(ctx context.Context, modelName string, length, capTokens int) (numCtx int, why string) {
	n := numCtxFor(length, capTokens)
	if f, ok := a.cfg.Model.(model.ContextFitter); ok && capTokens <= 0 {
		return f.FitContext(ctx, modelName, n)
	}
	return n, ""
}

// promptBudget is what the prompt may take of numCtx: the rest is kept for the answer
// (num_predict when set, else a quarter of the window, at most 4096 tokens).
func promptBudget(numCtx, numPredict int) int {
	reserve := numCtx / 4
	if reserve > 4096 {
		reserve = 4096
	}
	if numPredict > 0 && numPredict < reserve {
		reserve = numPredict
	}
	return numCtx - reserve
}
