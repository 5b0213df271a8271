package agentloop

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"prototyper/events"
	"prototyper/store"
	"prototyper/tools"
)

// summaryHarness is an agent whose fake model echoes a long text in the first turn of a chat
// and answers the summary request with summary, in a context of 2048 tokens; the first run
// is done, and the next message does not fit.
func summaryHarness(t *testing.T, summary ModelTurn) (a *Agent, m *fakeModel, db *store.DB, rec *recorder, summaryReqs *[]ModelRequest, chatID string) {
	t.Helper()
	big := strings.Repeat("y", 4000)
	summaryReqs = &[]ModelRequest{}
	m = &fakeModel{turn: func(req ModelRequest) ModelTurn {
		if req.Messages[0].Content == summaryRequestText {
			*summaryReqs = append(*summaryReqs, req)
			return summary
		}
		if trail(req) == "U" {
			return toolTurn(tc("", "echo", fmt.Sprintf(`{"text":%q}`, big)))
		}
		return answer("ok")
	}}
	a, db, rec = fakeHarness(t, m, nil, echoTool(tools.Parallel, nil))
	if err := db.PutSettings(store.Settings{ContextCap: 2048}); err != nil {
		t.Fatal(err)
	}
	return a, m, db, rec, summaryReqs, runFake(t, a, "first").ChatID
}

func TestOlderTurnsThatNoLongerFitAreSummarizedByTheModelInsteadOfLost(t *testing.T) {
	a, m, db, rec, reqs, chatID := summaryHarness(t, answer("<think>Condense.</think>The user had echo repeat a long text; it worked."))
	out := Outcome{ChatID: chatID}
	summaryReqs := *reqs
	if len(summaryReqs) != 0 {
		t.Fatalf("a summary was asked for a run whose turns fit")
	}
	if _, err := a.RunOnce(context.Background(), out.ChatID, "second", RunOptions{}); err != nil {
		t.Fatal(err)
	}
	summaryReqs = *reqs
	if len(summaryReqs) != 1 || !strings.Contains(summaryReqs[0].Messages[1].Content, "USER:\nfirst") ||
		summaryReqs[0].Think != "off" || len(summaryReqs[0].Tools) != 0 {
		t.Fatalf("summary requests %+v", summaryReqs)
	}
	last := m.reqs[len(m.reqs)-1]
	if trail(last) != "SU" || last.Messages[1].Content != summaryIntro+"The user had echo repeat a long text; it worked." ||
		last.Messages[2].Content != "second" {
		t.Fatalf("the request after the summary: %s %+v", trail(last), last.Messages[1:])
	}
	msgs, _ := db.Messages(out.ChatID)
	sum := msgs[len(msgs)-2]
	if sum.Role != store.RoleSystem || sum.SummaryOf != msgs[3].ID || !strings.HasPrefix(sum.Content, "The user had echo") {
		t.Fatalf("stored %q; summary %+v", roles(msgs), sum)
	}
	started := ofType(rec.events(), events.MessageStarted)
	var shown bool
	for _, e := range started {
		shown = shown || e.Kind == events.KindSummary && e.MessageID == sum.ID && e.DroppedMessages == 4
	}
	if !shown {
		t.Fatalf("the summary was not shown: %s", summary(started))
	}

	// the next run sends the summary again, not the turns it stands for
	if _, err := a.RunOnce(context.Background(), out.ChatID, "third", RunOptions{}); err != nil {
		t.Fatal(err)
	}
	if last := m.reqs[len(m.reqs)-1]; trail(last) != "SUAU" || !strings.HasPrefix(last.Messages[1].Content, summaryIntro) || len(*reqs) != 1 {
		t.Fatalf("the next run: %s, %d summaries", trail(last), len(summaryReqs))
	}
}

func TestWhenTheSummaryFailsTheOldTurnsAreLeftOutAsBefore(t *testing.T) {
	a, _, db, rec, _, chatID := summaryHarness(t, ModelTurn{DoneReason: "stop"}) // an empty summary
	if _, err := a.RunOnce(context.Background(), chatID, "second", RunOptions{}); err != nil {
		t.Fatal(err)
	}
	if len(ofType(rec.events(), events.ContextTruncated)) == 0 {
		t.Fatal("no context.truncated: the turns left out were not said")
	}
	msgs, _ := db.Messages(chatID)
	for _, msg := range msgs {
		if msg.SummaryOf != "" {
			t.Fatalf("an empty summary was stored: %+v", msg)
		}
	}
}
