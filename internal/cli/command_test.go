package cli

import (
	"bufio"
	"bytes"
	"context"
	"strings"
	"testing"

	"prototyper/agentloop"
	"prototyper/events"
	"prototyper/tools"
)

func TestTheTerminalAsksAboutACommandShowingItsLineAndFolderAndReadsTheNetworkAndPattern(t *testing.T) {
	req := agentloop.ApprovalRequest{Name: tools.RunCommand, Preview: &tools.Preview{
		Command: &tools.CommandPreview{Command: "npm install left-pad", Cwd: "web", Pattern: "npm install"}}}
	for answer, want := range map[string]agentloop.CommandDecision{
		"y":        {Decision: agentloop.DecisionAllow},
		"net":      {Decision: agentloop.DecisionAllow, Network: true},
		"a":        {Decision: agentloop.DecisionAllow, Pattern: "npm install"},
		"a net":    {Decision: agentloop.DecisionAllow, Network: true, Pattern: "npm install"},
		"":         {Decision: agentloop.DecisionDeny, Reason: "the user said no"},
		"n":        {Decision: agentloop.DecisionDeny, Reason: "the user said no"},
		"use yarn": {Decision: agentloop.DecisionDeny, Reason: "use yarn"},
	} {
		var out bytes.Buffer
		asker := &terminalApprover{in: bufio.NewReader(strings.NewReader(answer + "\n")), out: &out, flush: func() {}}
		got, err := asker.ApproveCommand(context.Background(), req)
		if err != nil || got != want {
			t.Errorf("answer %q: %+v, %v; want %+v", answer, got, err, want)
		}
		for _, said := range []string{"in web:", "npm install left-pad", "with network", `always allow "npm install"`} {
			if !strings.Contains(out.String(), said) {
				t.Errorf("the question %q does not say %q", out.String(), said)
			}
		}
	}
}

func TestTheTerminalsAlwaysAllowCoversOnlyTheInlineCodeAskedAndNeverABareShell(t *testing.T) {
	ask := func(line, answer string) (agentloop.CommandDecision, string) {
		req := agentloop.ApprovalRequest{Name: tools.RunCommand, Preview: &tools.Preview{
			Command: &tools.CommandPreview{Command: line, Pattern: tools.CommandPattern(line)}}}
		var out bytes.Buffer
		asker := &terminalApprover{in: bufio.NewReader(strings.NewReader(answer + "\n")), out: &out, flush: func() {}}
		got, err := asker.ApproveCommand(context.Background(), req)
		if err != nil {
			t.Fatal(err)
		}
		return got, out.String()
	}
	if got, _ := ask("bash -c 'echo hi'", "a"); got.Decision != agentloop.DecisionAllow || got.Pattern != "bash -c 'echo hi'" {
		t.Errorf("always allowing bash -c 'echo hi' gave %+v; want the whole line as the pattern", got)
	}
	got, said := ask("bash", "a")
	if got.Decision != agentloop.DecisionDeny || got.Pattern != "" || strings.Contains(said, "always allow") {
		t.Errorf("a bare shell: asked %q, answer a gave %+v; want no always-allow offered and nothing allowed", said, got)
	}
}

func TestTheTerminalPrintsACommandsOutputAsItComesAndHowItEnded(t *testing.T) {
	var out, errs bytes.Buffer
	term := newTerminal(&out, &errs, false)
	ok := true
	ms := int64(1200)
	term.Deliver([]events.Event{
		{Type: events.ToolCall, ToolCallID: "c1", Name: tools.RunCommand, Args: []byte(`{"command":"make test"}`), State: events.ToolStateRunning},
		{Type: events.ToolOutput, ToolCallID: "c1", Stream: events.StreamStdout, Text: "ok 1\n"},
		{Type: events.ToolOutput, ToolCallID: "c1", Stream: events.StreamStderr, Text: "FAIL 2\n"},
		{Type: events.ToolResult, ToolCallID: "c1", Name: tools.RunCommand, OK: &ok, DurationMs: &ms,
			Details: &tools.Details{Command: &tools.CommandDetails{ExitCode: 2, Changes: []tools.CommandChange{{Path: "out.txt", Kind: "created"}}}}},
	})
	s := out.String()
	if !strings.Contains(s, "ok 1\nFAIL 2\n") || !strings.Contains(s, "exit status 2, 1 path(s) changed") ||
		strings.Index(s, "ok 1") > strings.Index(s, "exit status") {
		t.Errorf("printed %q; want the output as it came, then how the command ended", s)
	}
}
