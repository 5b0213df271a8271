package agentloop

import (
	"fmt"
	"prototyper/model/vocab"
)

// promptWasCut reports whether the server's count of a prompt's tokens says that it cut the
// prompt: it evaluated the whole window (a prompt that fills it was longer: the server keeps
// its end), or the loop expected more tokens than the context holds and the server evaluated
// clearly fewer than expected — yet too many for a prompt its cache served, whose count would
// be a short tail (a prompt cut to the context is counted near the context's size).
func promptWasCut(expected, promptTokens, numCtx int) bool {
	if numCtx <= 0 {
		return false
	}
	return promptTokens >= numCtx || expected > numCtx && promptTokens >= numCtx/2 && promptTokens < expected*3/4
}

// cutPromptSentence says that the model did not see the whole prompt, and what to do.
func cutPromptSentence(expected, numCtx int) string {
	prompt, ctx := vocab.TokenCounts(expected, numCtx)
	return fmt.Sprintf("The conversation (about %s tokens) did not fit the model's context of %s tokens: "+
		"Ollama cut its beginning, so the model did not see all of it. Raise the context cap in the settings, "+
		"shorten the message, or start a new chat.", prompt, ctx)
}
