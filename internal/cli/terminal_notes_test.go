package cli

import (
	"bytes"
	"strings"
	"testing"

	"prototyper/agentloop"
	"prototyper/events"
)

func TestTheTerminalSaysTheSentencesARunSaysWithoutEndingAndNoOtherError(t *testing.T) {
	var out, errOut bytes.Buffer
	term := newTerminal(&out, &errOut, false)
	no := false
	said := map[string]string{
		agentloop.CodeCallsWritten:        "m's tool calls came back unreadable, so Prototyper now asks it to write each call as text, for this model from now on.",
		agentloop.CodeInstructionsRefused: "AGENTS.md was not read.",
		"stream_error":                    "the stream broke",
	}
	for code, message := range said {
		if err := term.Deliver([]events.Event{{Type: events.Error, Code: code, Message: message, Retryable: &no}}); err != nil {
			t.Fatal(err)
		}
	}
	got := errOut.String()
	for _, code := range []string{agentloop.CodeCallsWritten, agentloop.CodeInstructionsRefused} {
		if !strings.Contains(got, said[code]) {
			t.Errorf("the terminal does not say %q:\n%s", said[code], got)
		}
	}
	if strings.Contains(got, "the stream broke") {
		t.Errorf("the terminal said the run's error before its end:\n%s", got)
	}
}
