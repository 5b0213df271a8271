package agentloop

import (
	"testing"

	"prototyper/events"
	"prototyper/model"
)

func TestToolsThatCouldNotBeOfferedAreSaidAndKeptWithTheRun(t *testing.T) {
	const sentence = "The MCP server files could not start: prototyper-files is not installed."
	m := &fakeModel{turn: func(model.Request) model.Turn { return answer("done") }}
	a, _, rec := fakeHarness(t, m, func(c *Config) {
		static := c.Tools
		c.Tools = func(dir string) (Toolbox, func() error, error) {
			tb, closeTools, err := static(dir)
			return noticedToolbox{tb, []string{sentence}}, closeTools, err
		}
	})
	out := runFake(t, a, "go")
	if out.StopReason != events.StopCompleted {
		t.Fatalf("stop reason %q: the run goes on without the tools", out.StopReason)
	}
	said := ofType(rec.events(), events.Error)
	if len(said) != 1 || said[0].Code != CodeToolsUnavailable || said[0].Message != sentence {
		t.Fatalf("error events %+v, want the one sentence", said)
	}
	opened, err := a.Open(out.ChatID)
	if err != nil {
		t.Fatal(err)
	}
	if len(opened.Notes) != 1 || opened.Notes[0].Code != CodeToolsUnavailable || opened.Notes[0].Message != sentence || opened.Notes[0].RunID != said[0].RunID {
		t.Errorf("opened notes %+v: the chat reopened does not say it again", opened.Notes)
	}
}
