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

func TestOlderTurnsThatNoLongerFitAreSummarizedByTheModelInsteadOfLost(t *testing.T) {
	big := strings.Repeat("y", 4000)
	var summaryReqs []ModelRequest
	m := &fakeModel{turn: func(req ModelRequest) ModelTurn {
		if req.Messages[0].Content == summaryRequestText {
			summaryReqs = append(summaryReqs, req)
			return answer("<think>Condense.</think>The user had echo repeat a long text; it worked.")
		}
		if trail(req) == "U" {
			return toolTurn(tc("", "echo", fmt.Sprintf(`{"text":%q}`, big)))
		}
		return answer("ok")
	}}
	a, db, rec := fakeHarness(t, m, nil, echoTool(tools.Parallel, nil))
	if err := db.PutSettings(store.Settings{ContextCap: 2048}); err != nil {
		t.Fatal(err)
	}
	out := runFake(t, a, "first")
	if len(summaryReqs) != 0 {
		t.Fatalf("a summary was asked for a run whose turns fit")
	}
	if _, err := a.RunOnce(context.Background(), out.ChatID, "second", RunOptions{}); err != nil {
		t.Fatal(err)
	}
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
	if last := m.reqs[len(m.reqs)-1]; trail(last) != "SUAU" || !strings.HasPrefix(last.Messages[1].Content, summaryIntro) || len(summaryReqs) != 1 {
		t.Fatalf("the next run: %s, %d summaries", trail(last), len(summaryReqs))
	}
}

func TestWhenTheSummaryFailsTheOldTurnsAreLeftOutAsBefore(t *testing.T) {
	big := strings.Repeat("z", 4000)
	m := &fakeModel{turn: func(req ModelRequest) ModelTurn {
		if req.Messages[0].Content == summaryRequestText {
			return ModelTurn{DoneReason: "stop"} // nothing
		}
		if trail(req) == "U" {
			return toolTurn(tc("", "echo", fmt.Sprintf(`{"text":%q}`, big)))
		}
		return answer("ok")
	}}
	a, db, rec := fakeHarness(t, m, nil, echoTool(tools.Parallel, nil))
	if err := db.PutSettings(store.Settings{ContextCap: 2048}); err != nil {
		t.Fatal(err)
	}
	out := runFake(t, a, "first")
	if _, err := a.RunOnce(context.Background(), out.ChatID, "second", RunOptions{}); err != nil {
		t.Fatal(err)
	}
	if len(ofType(rec.events(), events.ContextTruncated)) == 0 {
		t.Fatal("no context.truncated: the turns left out were not said")
	}
	msgs, _ := db.Messages(out.ChatID)
	for _, msg := range msgs {
		if msg.SummaryOf != "" {
			t.Fatalf("an empty summary was stored: %+v", msg)
		}
	}
}
