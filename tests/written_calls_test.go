package tests

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"prototyper/agentloop"
	"prototyper/events"
	"prototyper/internal/ollamatest"
	"prototyper/model"
	"prototyper/store"
)

// unreadableCallerModel makes its first call through the API with JSON that does not close
// (the server's parser swallows it: the answer arrives empty), then, asked again without tools,
// writes the call as text, and ends in words once the result is back.
var unreadableCallerModel = ollamatest.Model{Name: "e2e-unreadable-caller", Scripts: ollamatest.Scripts{
	"SU":     ollamatest.ToolCall("write_file", `{"path": "hello.txt", "content": "hello"`),
	"SUAU":   {"{\"name\": \"write_file\",", " \"arguments\": {\"path\": \"hello.txt\", \"content\": \"hello\"}}"},
	"SUAUAT": {"Wrote", " hello.txt."},
}}

// allowEverything answers every approval yes: the test is about the form of the calls.
type allowEverything struct{}

func (allowEverything) Approve(context.Context, agentloop.ApprovalRequest) (string, string, error) {
	return agentloop.DecisionAllow, "", nil
}

// eventRecorder keeps the events of the runs.
type eventRecorder struct {
	mu  sync.Mutex
	got []events.Event
}

func (r *eventRecorder) Deliver(batch []events.Event) error {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.got = append(r.got, batch...)
	return nil
}

func (*eventRecorder) PaintsOnDelivery() bool { return true }

func (r *eventRecorder) withCode(code string) []events.Event {
	r.mu.Lock()
	defer r.mu.Unlock()
	var out []events.Event
	for _, e := range r.got {
		if e.Type == events.Error && e.Code == code {
			out = append(out, e)
		}
	}
	return out
}

// TestAModelWhoseNativeCallsComeBackUnreadableIsDrivenInTheWrittenFormFromThenOn: the loop
// sees the empty answer an unreadable native call leaves, says once that it now asks for calls
// written as text, asks again without tools (the system prompt lists them), runs the call the
// model writes, and starts the model's next chat in that form without saying it again.
func TestAModelWhoseNativeCallsComeBackUnreadableIsDrivenInTheWrittenFormFromThenOn(t *testing.T) {
	front, requests := ollamatest.RecordChats[chatRequest](t)
	server, err := model.NewOllamaServer(front)
	if err != nil {
		t.Fatal(err)
	}
	db, err := store.Open(filepath.Join(t.TempDir(), "p.db"), store.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	rec := &eventRecorder{}
	bridge, err := events.NewBridge(rec)
	if err != nil {
		t.Fatal(err)
	}
	ws := t.TempDir()
	agent := agentloop.Wire(db, server, bridge, agentloop.WireOptions{Workspace: ws})
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	run := func(prompt string) agentloop.Outcome {
		started := time.Now()
		defer func() { t.Logf("run %q took %s", prompt, time.Since(started)) }()
		out, err := agent.RunOnce(ctx, "", prompt, agentloop.RunOptions{Model: unreadableCallerModel.Name, MaxSteps: 6,
			Approve: agentloop.ApproveAuto, Approver: allowEverything{}, Workspace: ws, Think: "off"})
		if err != nil {
			t.Fatalf("run %q: %v", prompt, err)
		}
		return out
	}
	first := run("Write hello.txt")
	if first.StopReason != events.StopCompleted {
		t.Errorf("first run stopped %s", first.StopReason)
	}
	if got, _ := os.ReadFile(filepath.Join(ws, "hello.txt")); string(got) != "hello" {
		t.Errorf("hello.txt = %q: the call written as text did not run", got)
	}
	reqs := requests()
	if len(reqs) != 3 || len(reqs[0].Tools) == 0 || len(reqs[1].Tools) != 0 || len(reqs[2].Tools) != 0 {
		t.Fatalf("%d requests, tools %d/%d bytes; want tools offered natively first, then not", len(reqs), len(reqs[0].Tools), len(reqs[min(1, len(reqs)-1)].Tools))
	}
	if system := string(reqs[1].Messages[0]); !strings.Contains(system, "write_file") || !strings.Contains(system, `\"name\": \"TOOL\"`) {
		t.Errorf("the written form's system prompt does not list the tools and the form of a call: %s", system)
	}
	records, _ := db.ToolCalls(first.ChatID)
	if len(records) != 1 || records[0].Origin != events.OriginText || !records[0].OK {
		t.Errorf("records = %+v; want one call written as text that ran", records)
	}

	run("Write it again")
	if notes := rec.withCode(agentloop.CodeCallsWritten); len(notes) != 1 || !strings.Contains(notes[0].Message, unreadableCallerModel.Name) {
		t.Errorf("said %+v; want the switch said once, naming the model", notes)
	}
	if reqs := requests(); len(reqs) < 4 || len(reqs[3].Tools) != 0 {
		t.Errorf("the model's next chat offered tools natively again")
	}
	if yes, err := db.WritesCalls(unreadableCallerModel.Name); err != nil || !yes {
		t.Errorf("the store does not remember the model's form: %v, %v", yes, err)
	}
}
