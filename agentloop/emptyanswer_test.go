package agentloop

import (
	"slices"
	"testing"

	"prototyper/events"
	"prototyper/model"
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
