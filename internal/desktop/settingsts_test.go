package desktop

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// The committed TypeScript of the settings is what store.Settings generates now: a field
// changed on the Go side without `go generate` fails here, not in the window.
func TestGeneratedSettingsTypeScriptIsCurrent(t *testing.T) {
	want, err := SettingsTS(".")
	if err != nil {
		t.Fatal(err)
	}
	got, err := os.ReadFile(filepath.Join("..", "..", filepath.FromSlash(SettingsTSFile)))
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(got, want) {
		t.Fatalf("%s is stale: run `go generate ./internal/desktop/` and commit it", SettingsTSFile)
	}
}

// The string fields with a fixed set of values keep their narrow union in TypeScript, and a
// field Go may omit is optional there.
func TestGeneratedSettingsKeepTheUnionsAndOptionalFields(t *testing.T) {
	out, err := SettingsTS(".")
	if err != nil {
		t.Fatal(err)
	}
	text := string(out)
	for _, line := range []string{
		"export type ThinkLevel = 'off' | 'on' | 'low' | 'medium' | 'high'",
		"export type ApprovalPolicy = 'auto' | 'ask' | 'deny'",
		"  think?: ThinkLevel",
		"  toolApproval?: Record<string, ApprovalPolicy>",
		"  provider: Provider",
		"  theme: Theme",
		"  olderTurns?: OlderTurnsPolicy",
		"  commandRules?: Record<string, CommandRule[] | null>",
		"  mcpServers?: unknown",
		"  checkpointMaxBytes?: number",
	} {
		if !strings.Contains(text, line+"\n") {
			t.Errorf("the generated settings lack %q:\n%s", line, text)
		}
	}
}
