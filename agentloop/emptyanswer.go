package agentloop

import (
	"strings"

	"prototyper/model"
	"prototyper/store"
)

// CodeEmptyAnswer is the code of the sentence that ends a run whose model answered nothing,
// also when asked again (run.finished's code and message, kept in the run's note): the window
// knows that sentence by its code, whatever its words.
const CodeEmptyAnswer = "empty_answer"

// IsEmptyAnswer reports whether an answer is an empty answer: the model ended its turn itself
// (doneReason stop, or none given) with no text and no tool call; what it thought does not
// count. The loop asks again after one; the window marks one as such from what it is sent
// (message.completed's empty, [OpenedChat.EmptyAnswers]).
func IsEmptyAnswer(content string, toolCalls int, doneReason string) bool {
	return toolCalls == 0 && strings.TrimSpace(content) == "" && (doneReason == model.DoneStop || doneReason == "")
}

// emptyAnswers lists the ids of the stored answers that are empty answers (complete ones only:
// an answer cut short is no answer yet).
func emptyAnswers(msgs []store.Message) []string {
	var out []string
	for _, m := range msgs {
		if m.Role == store.RoleAssistant && m.Complete && IsEmptyAnswer(m.Content, len(m.ToolCalls), m.DoneReason) {
			out = append(out, m.ID)
		}
	}
	return out
}
