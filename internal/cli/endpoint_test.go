package cli

import (
	"context"
	"strings"
	"testing"
)

func TestRunAndACPRefuseAnEndpointTheyCannotUseAsAUsageError(t *testing.T) {
	commands := []struct {
		name  string
		run   func(context.Context, []string, IO) int
		words []string
	}{{"run", runCommand, []string{"hi"}}, {"acp", acpCommand, nil}}
	for _, tc := range []struct {
		args []string
		says string
	}{
		{[]string{"--provider", "anthropic"}, `--provider is ollama or openai, not "anthropic"`},
		{[]string{"--provider", "openai"}, "--provider openai needs --base-url"},
		{[]string{"--provider", "openai", "--base-url", "gpu:8000"}, "the base URL must be the server's API address"},
		{[]string{"--api-key-env", "sk-abc-123"}, "never the key itself"},
	} {
		for _, c := range commands {
			var out, errb strings.Builder
			args := append(append([]string{"--db", t.TempDir() + "/p.db"}, tc.args...), c.words...)
			code := c.run(context.Background(), args, IO{In: strings.NewReader(""), Out: &out, Err: &errb})
			if code != ExitUsage || !strings.Contains(errb.String(), tc.says) {
				t.Errorf("%s %v: exit %d, %q; want usage saying %q", c.name, tc.args, code, errb.String(), tc.says)
			}
		}
	}
}
