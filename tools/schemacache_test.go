package tools

import (
	"context"
	"encoding/json"
	"testing"
)

// A run's registry is built as each message is sent: the schemas of tools seen before are
// not compiled again, and a tool whose schema changed (an MCP server's, say) is validated by
// its new one.
func TestARegistryOfToolsSeenBeforeReusesTheirCompiledSchemas(t *testing.T) {
	first := mustRegistry(t, echoTool())
	second := mustRegistry(t, echoTool())
	if first.byName["echo"].schema != second.byName["echo"].schema {
		t.Error("the second registry compiled the echo tool's schema again")
	}
	changed := New("echo", "Repeat a text.").Param("words", "string", "The words.", Required).
		Handle(func(ctx context.Context, call Call, _ ProgressFunc) (Result, error) {
			return Result{Content: call.Args.String("words")}, nil
		})
	r := mustRegistry(t, changed)
	if _, err := r.Validate("echo", json.RawMessage(`{"words":"hi"}`)); err != nil {
		t.Errorf("the changed schema's arguments: %v", err)
	}
	if _, err := r.Validate("echo", json.RawMessage(`{"text":"hi"}`)); err == nil {
		t.Error("arguments of the old schema passed the changed one")
	}
	if again := mustRegistry(t, echoTool()); again.byName["echo"].schema != first.byName["echo"].schema {
		t.Error("the first schema was compiled again after another of the same name")
	}
}

// BenchmarkWorkspaceRegistry builds the registry of the workspace tools, as each message's
// admission does.
func BenchmarkWorkspaceRegistry(b *testing.B) {
	ws, err := OpenWorkspace(b.TempDir(), WorkspaceOptions{})
	if err != nil {
		b.Fatal(err)
	}
	defer ws.Close()
	for b.Loop() {
		if _, err := NewRegistry(ws.Tools()...); err != nil {
			b.Fatal(err)
		}
	}
}
