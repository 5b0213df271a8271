package agentloop

import (
	"strings"
	"testing"

	"prototyper/events"
	"prototyper/model"
	"prototyper/store"
	"prototyper/tools"
)

func TestACutPromptIsToldApartFromACachedOne(t *testing.T) {
	tests := []struct {
		name                           string
		expected, promptTokens, numCtx int
		cut                            bool
	}{
		{"a prompt that fits, counted whole", 1500, 1480, 2048, false},
		{"a prompt that fits, served by the cache", 1500, 40, 2048, false},
		{"a prompt larger than the context, counted near its size", 6000, 2000, 2048, true},
		{"a prompt larger than the context by the estimate only", 2300, 2040, 2048, false},
		{"a long prompt whose beginning the cache served", 6000, 300, 2048, false},
		{"a prompt that filled the whole window, estimated short", 1500, 2048, 2048, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := promptWasCut(tt.expected, tt.promptTokens, tt.numCtx); got != tt.cut {
				t.Errorf("promptWasCut(%d, %d, %d) = %v", tt.expected, tt.promptTokens, tt.numCtx, got)
			}
		})
	}
}

func TestARunSaysWhenTheServerCutThePrompt(t *testing.T) {
	huge := strings.Repeat("all work and no play ", 1200) // about 7000 tokens by the estimate
	m := &fakeModel{turn: func(req model.Request) model.Turn {
		if trail(req) == "U" {
			return toolTurn(echoCall(huge))
		}
		// the server evaluated what fits the window, not the whole prompt
		return model.Turn{Content: "ok", DoneReason: "stop", PromptTokens: req.NumCtx - 10, EvalTokens: 1}
	}}
	a, db, rec := fakeHarness(t, m, nil, echoTool(tools.Parallel, nil))
	if err := db.PutSettings(store.Settings{ContextCap: 2048}); err != nil {
		t.Fatal(err)
	}
	runFake(t, a, "go")
	cut := ofType(rec.events(), events.ContextCut)
	if len(cut) != 1 || cut[0].NumCtx != 2048 || cut[0].EstimatedTokens <= 2048 ||
		!strings.Contains(cut[0].Message, "did not fit the model's context of 2K tokens") {
		t.Fatalf("context.cut events %s", summary(cut))
	}
	done := ofType(rec.events(), events.MessageCompleted)
	last := done[len(done)-1].Usage
	if last.NumCtx != 2048 || last.ContextTokens != 2048 {
		t.Fatalf("usage %+v: want num_ctx and how full the context was", last)
	}
}

func TestEachAnswersUsageCarriesTheContextItTook(t *testing.T) {
	m := &fakeModel{turn: func(req model.Request) model.Turn {
		return model.Turn{Content: "hi", DoneReason: "stop", PromptTokens: 120, EvalTokens: 3}
	}}
	a, db, rec := fakeHarness(t, m, nil)
	if err := db.PutSettings(store.Settings{ContextCap: 4096}); err != nil {
		t.Fatal(err)
	}
	runFake(t, a, "hi")
	u := ofType(rec.events(), events.MessageCompleted)[0].Usage
	if u.NumCtx != 4096 || u.PromptTokens != 120 || u.ContextTokens != 123 || len(ofType(rec.events(), events.ContextCut)) != 0 {
		t.Fatalf("usage %+v", u)
	}
}

func TestAPromptTheRealServerCutIsSaid(t *testing.T) {
	h := newHarness(t, harnessOptions{model: "reader", approve: ApproveAuto})
	if err := h.db.PutSettings(store.Settings{ContextCap: 2048}); err != nil {
		t.Fatal(err)
	}
	// 15400 bytes: each is a token of the scripted model, seven times its context
	writeFile(t, h.workspace, "big.txt", strings.Repeat("abcdefghij\n", 1400))
	h.runOnce(t, "read big.txt", RunOptions{})
	done := ofType(h.rec.events(), events.MessageCompleted)
	cut := ofType(h.rec.events(), events.ContextCut)
	if len(cut) != 1 || cut[0].NumCtx != 2048 || done[len(done)-1].Usage.ContextTokens != 2048 {
		t.Fatalf("context.cut events %s; usage %s", summary(cut), summary(done))
	}
}
