package agentloop

import (
	"slices"
	"testing"

	"prototyper/events"
	"prototyper/model"
	"prototyper/store"
)

func TestAnAnswerIsEmptyWithNoTextNoCallAndAnEndTheModelChose(t *testing.T) {
	cases := []struct {
		name       string
		content    string
		calls      int
		doneReason string
		want       bool
	}{
		{"nothing, stopped", "", 0, model.DoneStop, true},
		{"blank text, no reason given", " \n", 0, "", true},
		{"a call", "", 1, model.DoneStop, false},
		{"some text", "hi", 0, model.DoneStop, false},
		{"cut by the length limit", "", 0, "length", false},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			if got := IsEmptyAnswer(c.content, c.calls, c.doneReason); got != c.want {
				t.Errorf("IsEmptyAnswer = %v, want %v", got, c.want)
			}
		})
	}
}

// The window marks an empty answer from what it is sent: message.completed says so live, and
// the opened chat lists the empty answers it holds.
func TestAnEmptyAnswerIsSaidLiveAndInTheOpenedChat(t *testing.T) {
	m := thinksOnlyFirst("hm", "stop", "Here it is.")
	a, _, rec := fakeHarness(t, m, nil)
	out := runFake(t, a, "hi")
	done := ofType(rec.events(), events.MessageCompleted)
	if len(done) != 2 || !done[0].Empty || done[1].Empty {
		t.Fatalf("message.completed %+v, want the first empty and the second not", done)
	}
	opened, err := a.Open(out.ChatID)
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(opened.EmptyAnswers, []string{done[0].MessageID}) {
		t.Errorf("opened empty answers %v, want [%s]", opened.EmptyAnswers, done[0].MessageID)
	}
}

// thinksOnlyFirst is a model whose first turn only thinks thought and ends for done (with
// "stop", an empty answer), and whose every later turn answers then.
func thinksOnlyFirst(thought, done, then string) *fakeModel {
	return &fakeModel{turn: func(req model.Request) model.Turn {
		if len(req.Messages) == 2 { // the system prompt and the user's message: the first turn
			return model.Turn{Thinking: thought, DoneReason: done}
		}
		return answer(then)
	}}
}

func TestAnEmptyAnswerIsAskedAgainOnce(t *testing.T) {
	m := thinksOnlyFirst("hm", "stop", "Here it is.") // thought, said nothing
	a, db, _ := fakeHarness(t, m, nil)
	out := runFake(t, a, "hi")
	if out.StopReason != events.StopCompleted || out.Note != "" || len(m.reqs) != 2 {
		t.Fatalf("outcome %+v after %d model calls", out, len(m.reqs))
	}
	if last := m.reqs[1].Messages[len(m.reqs[1].Messages)-1]; last.Role != store.RoleUser || last.Content != textEmptyAnswer {
		t.Fatalf("the second request ends with %+v, want the nudge", last)
	}
	msgs, _ := db.Messages(out.ChatID)
	if roles(msgs) != "UAA" || msgs[2].Content != "Here it is." {
		t.Fatalf("stored %q: the nudge is not stored, both answers are", roles(msgs))
	}
}

func TestAModelThatAnswersNothingTwiceIsReportedAsAnEmptyAnswer(t *testing.T) {
	m := &fakeModel{turn: func(req model.Request) model.Turn { return model.Turn{DoneReason: "stop", EvalTokens: 1} }}
	a, _, rec := fakeHarness(t, m, nil)
	out := runFake(t, a, "hi")
	if out.StopReason != events.StopCompleted || out.Note != noteEmptyAnswer || len(m.reqs) != 2 {
		t.Fatalf("outcome %+v after %d model calls", out, len(m.reqs))
	}
	if fin := ofType(rec.events(), events.RunFinished); fin[0].Message != noteEmptyAnswer {
		t.Fatalf("run.finished %+v", fin[0])
	}
}

// The window knows the sentence that ends a run on an empty answer by its code, live and in
// the reopened chat, so that its words can change.
func TestTheSentenceOfAnEmptyAnswerCarriesItsCodeLiveAndReopened(t *testing.T) {
	m := &fakeModel{turn: func(req model.Request) model.Turn { return model.Turn{DoneReason: "stop", EvalTokens: 1} }}
	a, _, rec := fakeHarness(t, m, nil)
	out := runFake(t, a, "hi")
	if fin := ofType(rec.events(), events.RunFinished); fin[0].Code != CodeEmptyAnswer {
		t.Fatalf("run.finished %+v, want the code %q", fin[0], CodeEmptyAnswer)
	}
	opened, err := a.Open(out.ChatID)
	if err != nil {
		t.Fatal(err)
	}
	if len(opened.Notes) != 1 || opened.Notes[0].Code != CodeEmptyAnswer || opened.Notes[0].Message != noteEmptyAnswer {
		t.Fatalf("opened notes %+v, want the empty answer's sentence with its code", opened.Notes)
	}
}

// A store written before the sentence had a code still opens with it: a completed run keeps
// no other sentence.
func TestAnEmptyAnswerNoteKeptWithoutACodeOpensWithIt(t *testing.T) {
	a, db, _ := fakeHarness(t, &fakeModel{}, nil)
	chat, err := db.CreateChat(store.Chat{Workspace: t.TempDir(), Model: "fake"})
	if err != nil {
		t.Fatal(err)
	}
	run, err := db.StartRun(store.Run{ChatID: chat.ID})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := db.AddRunNote(run.ID, store.RunNote{StopReason: events.StopCompleted, Message: "The model said nothing."}); err != nil {
		t.Fatal(err)
	}
	if _, err := db.FinishRun(run.ID, events.StopCompleted, nil); err != nil {
		t.Fatal(err)
	}
	opened, err := a.Open(chat.ID)
	if err != nil {
		t.Fatal(err)
	}
	if len(opened.Notes) != 1 || opened.Notes[0].Code != CodeEmptyAnswer {
		t.Fatalf("opened notes %+v, want the old note with the code %q", opened.Notes, CodeEmptyAnswer)
	}
}

func TestAnAnswerCutByTheLengthLimitIsNotEmpty(t *testing.T) {
	m := thinksOnlyFirst("long thought", "length", "ok")
	a, _, _ := fakeHarness(t, m, nil)
	runFake(t, a, "hi")
	if last := m.reqs[1].Messages[len(m.reqs[1].Messages)-1]; last.Content != textContinue {
		t.Fatalf("a cut answer got %q, want the continuation", last.Content)
	}
}

func TestAnEmptyTurnIsAskedAgainOnTheRealServer(t *testing.T) {
	h := newHarness(t, harnessOptions{model: "silent"})
	out := h.runCompleted(t, "hi")
	msgs := h.messages(t, out.ChatID)
	if roles(msgs) != "UAA" || msgs[1].Content != "" || msgs[2].Content != "Here it is." || out.Note != "" {
		t.Fatalf("messages %+v, note %q; events %s", msgs, out.Note, summary(h.rec.events()))
	}
}
