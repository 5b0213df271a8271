package agentloop

import (
	"context"
	"testing"
	"time"

	"prototyper/events"
	"prototyper/model"
	"prototyper/tools"
)

// slowStartModel waits before each answer's first delta, then answers as turn says.
type slowStartModel struct {
	fakeModel
	wait time.Duration
	load time.Duration // the server's load of the model, reported with the answer
}

func (s *slowStartModel) Chat(ctx context.Context, req model.Request, fn model.DeltaFunc) (model.Turn, error) {
	time.Sleep(s.wait)
	t, err := s.fakeModel.Chat(ctx, req, fn)
	t.LoadDuration = s.load
	return t, err
}

// completedUsages are the usages of the message.completed events, in order, and the run's.
func completedUsages(evs []events.Event) (messages []events.Usage, run events.Usage) {
	for _, e := range evs {
		switch {
		case e.Type == events.MessageCompleted && e.Usage != nil:
			messages = append(messages, *e.Usage)
		case e.Type == events.RunFinished && e.Usage != nil:
			run = *e.Usage
		}
	}
	return messages, run
}

func TestEveryAnswerSaysItsTimeToFirstTokenAndTheRunItsFirstAnswers(t *testing.T) {
	wait := 30 * time.Millisecond
	m := &slowStartModel{wait: wait, fakeModel: fakeModel{turn: func(req model.Request) model.Turn {
		if trail(req) == "U" {
			return toolTurn(echoCall("hi")) // calls alone: the wait runs to the answer's end
		}
		return answer("done")
	}}}
	a, _, rec := fakeHarness(t, m, nil, echoTool(tools.Parallel, nil))
	runFake(t, a, "go")
	msgs, run := completedUsages(rec.events())
	if len(msgs) != 2 {
		t.Fatalf("%d answers with usage, want 2", len(msgs))
	}
	for i, u := range msgs {
		if u.FirstTokenMs < wait.Milliseconds() {
			t.Errorf("answer %d: first token after %d ms; the model waited %s before answering", i+1, u.FirstTokenMs, wait)
		}
	}
	if run.FirstTokenMs != msgs[0].FirstTokenMs {
		t.Errorf("run.finished says %d ms to the first token; want its first answer's, %d ms", run.FirstTokenMs, msgs[0].FirstTokenMs)
	}
}

func TestTheTimeToFirstTokenLeavesTheModelsLoadOut(t *testing.T) {
	m := &slowStartModel{wait: 20 * time.Millisecond, load: time.Hour,
		fakeModel: fakeModel{turn: func(model.Request) model.Turn { return answer("hello") }}}
	a, _, rec := fakeHarness(t, m, nil)
	runFake(t, a, "go")
	msgs, _ := completedUsages(rec.events())
	if len(msgs) != 1 || msgs[0].FirstTokenMs != 1 {
		t.Errorf("usages %+v; want one answer whose first token, its load of an hour left out, took the least said (1 ms)", msgs)
	}
}
