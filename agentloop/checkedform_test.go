package agentloop

import (
	"context"
	"strings"
	"testing"

	"prototyper/events"
	"prototyper/model"
	"prototyper/store"
	"prototyper/tools"
)

// TestAModelItsCheckFoundWritingCallsIsAskedForThemFromItsFirstRequest: a stored check that
// found only written calls working has the model's first request carry the tools in the system
// prompt, none natively, says so once and is remembered; the check's own runs (native calls
// only) and a model checked otherwise are offered tools natively.
func TestAModelItsCheckFoundWritingCallsIsAskedForThemFromItsFirstRequest(t *testing.T) {
	m := &fakeModel{turn: func(model.Request) model.Turn { return answer("ok") }}
	a, db, rec := fakeHarness(t, m, nil, echoTool(tools.Parallel, nil))
	for _, c := range []store.ModelCheck{{Model: "writer", WrittenCalls: true, Passed: 1, Total: 6}, {Model: "native", Passed: 1, Total: 6}} {
		if err := db.PutModelCheck(c); err != nil {
			t.Fatal(err)
		}
	}
	run := func(modelName string, nativeOnly bool) model.Request {
		t.Helper()
		before := len(m.reqs)
		if _, err := a.RunOnce(context.Background(), "", "go", RunOptions{Model: modelName, NativeCallsOnly: nativeOnly}); err != nil {
			t.Fatal(err)
		}
		return m.reqs[before]
	}
	said := func() (n int) {
		for _, e := range rec.events() {
			if e.Type == events.Error && e.Code == CodeCallsWritten {
				n++
			}
		}
		return n
	}
	if req := run("writer", true); len(req.Tools) == 0 {
		t.Errorf("a run with native calls only was asked for written calls")
	}
	if req := run("native", false); len(req.Tools) == 0 {
		t.Errorf("a model whose check found native calls working was asked for written calls")
	}
	if said() != 0 {
		t.Fatalf("the written form said before any run used it")
	}
	req := run("writer", false)
	if len(req.Tools) != 0 || !strings.Contains(req.Messages[0].Content, `"name": "TOOL"`) {
		t.Errorf("the first request offered %d tools natively; want them in the system prompt: %s", len(req.Tools), req.Messages[0].Content)
	}
	if n := said(); n != 1 {
		t.Errorf("the written form said %d times; want once", n)
	}
	if yes, _ := db.WritesCalls("writer"); !yes {
		t.Errorf("the written form is not remembered for the model")
	}
	if req := run("writer", false); len(req.Tools) != 0 || said() != 1 {
		t.Errorf("the next chat: %d tools natively, said %d times; want none and once in all", len(req.Tools), said())
	}
}
