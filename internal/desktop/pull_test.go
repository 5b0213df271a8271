package desktop

import (
	"context"
	"testing"

	"prototyper/events"
	"prototyper/internal/cli"
	"prototyper/internal/ollamatest"
)

func TestPullProgressReachesTheWindowThroughTheBridge(t *testing.T) {
	url := pullServer(t,
		`{"status":"pulling manifest"}`,
		`{"status":"pulling 7df6b6e09427","digest":"sha256:7df6","total":1000,"completed":1000}`,
		`{"status":"success"}`,
	)
	d, closeDesk := openTestDesktop(t, cli.DesktopOptions{Common: cli.Common{Ollama: url}})
	if err := d.PullModel(context.Background(), " qwen3:0.6b "); err != nil {
		t.Fatal(err)
	}
	var statuses []string
	for _, e := range closeDesk() {
		if e.Type != events.PullProgress {
			t.Errorf("unexpected %s event", e.Type)
			continue
		}
		if e.Model != "qwen3:0.6b" || e.ChatID != "" || e.Seq == 0 {
			t.Errorf("event %+v: want model qwen3:0.6b, no chat, a seq", e)
		}
		statuses = append(statuses, e.Status)
	}
	if len(statuses) != 3 || statuses[0] != "pulling manifest" || statuses[2] != "success" {
		t.Errorf("statuses = %q", statuses)
	}
}

func TestAFailedPullEndsWithAnErrorEventNamingTheModel(t *testing.T) {
	url := pullServer(t, `{"status":"pulling manifest"}`, `{"error":"pull model manifest: file does not exist"}`)
	d, closeDesk := openTestDesktop(t, cli.DesktopOptions{Common: cli.Common{Ollama: url}})
	pullErr := d.PullModel(context.Background(), "nope:1b")
	if pullErr == nil {
		t.Fatal("the pull of an unknown model succeeded")
	}
	got := closeDesk()
	if len(got) != 2 || got[0].Type != events.PullProgress {
		t.Fatalf("events = %+v", got)
	}
	if last := got[1]; last.Type != events.Error || last.Model != "nope:1b" || last.Message != pullErr.Error() || last.Code == "" {
		t.Errorf("last event = %+v, want an error naming nope:1b with the pull's error", last)
	}
}

func TestAPullThatNeverStartedSendsNoEvent(t *testing.T) {
	d, closeDesk := openTestDesktop(t, cli.DesktopOptions{Common: cli.Common{Ollama: pullServer(t)}})
	if err := d.PullModel(context.Background(), "  "); err == nil {
		t.Error("a pull without a name was not refused")
	}
	if got := closeDesk(); len(got) != 0 {
		t.Errorf("events = %+v", got)
	}
}

// pullServer serves /api/pull the way Ollama does, streaming pullLines.
func pullServer(t *testing.T, pullLines ...string) string {
	t.Helper()
	return ollamatest.Serve(t, ollamatest.Routes{"/api/pull": ollamatest.PullLines(pullLines...)})
}
