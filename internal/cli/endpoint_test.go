package cli

import (
	"context"
	"strings"
	"testing"
)

func TestRunRefusesAnEndpointItCannotUseAsAUsageError(t *testing.T) {
	for _, tc := range []struct {
		args []string
		says string
	}{
		{[]string{"--provider", "anthropic"}, `--provider is ollama or openai, not "anthropic"`},
		{[]string{"--provider", "openai"}, "--provider openai needs --base-url"},
		{[]string{"--provider", "openai", "--base-url", "gpu:8000"}, "the base URL must be the server's API address"},
		{[]string{"--api-key-env", "sk-abc-123"}, "never the key itself"},
	} {
		var out, errb strings.Builder
		code := runCommand(context.Background(), append(append([]string{"--db", t.TempDir() + "/p.db"}, tc.args...), "hi"), IO{Out: &out, Err: &errb})
		if code != ExitUsage || !strings.Contains(errb.String(), tc.says) {
			t.Errorf("%v: exit %d, %q; want usage saying %q", tc.args, code, errb.String(), tc.says)
		}
	}
}
