package agentloop

import (
	"encoding/json"
	"os"
	"path/filepath"
	"testing"
)

// The window's opened-chat fixtures (frontend/src/test/contract, read by its contract test)
// carry the card states this package gives their records: each file's toolStates is what
// [RecordState] says, and so is the state its expect names for a card.
func TestTheWindowsFixturesCarryTheCardStatesGoGives(t *testing.T) {
	files, err := filepath.Glob(filepath.Join("..", "frontend", "src", "test", "contract", "*.json"))
	if err != nil || len(files) == 0 {
		t.Fatalf("no fixtures (%v)", err)
	}
	for _, f := range files {
		t.Run(filepath.Base(f), func(t *testing.T) {
			raw, err := os.ReadFile(f)
			if err != nil {
				t.Fatal(err)
			}
			var fixture struct {
				OpenedChat
				Expect map[string]string `json:"expect"`
			}
			if err := json.Unmarshal(raw, &fixture); err != nil {
				t.Fatal(err)
			}
			want := recordStates(fixture.ToolCalls, fixture.LiveRunID, Undone{}) // the fixtures hold no change records
			if os.Getenv("PROTOTYPER_PRINT_STATES") != "" {
				out, _ := json.Marshal(want)
				t.Logf("STATES %s %s", filepath.Base(f), out)
			}
			for id, state := range want {
				if fixture.ToolStates[id] != state {
					t.Errorf("toolStates[%s] = %q, RecordState gives %q", id, fixture.ToolStates[id], state)
				}
			}
			if len(fixture.ToolStates) != len(want) {
				t.Errorf("toolStates %v, want %v", fixture.ToolStates, want)
			}
			for id, state := range fixture.Expect {
				if want[id] != state {
					t.Errorf("expect[%s] = %q, RecordState gives %q", id, state, want[id])
				}
			}
		})
	}
}
