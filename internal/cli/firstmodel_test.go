package cli

import (
	"context"
	"fmt"
	"net/http"
	"path/filepath"
	"strings"
	"testing"

	"prototyper/internal/ollamatest"
	"prototyper/model/ollama"
)

func TestRunWithoutAModelOnAnEmptyServerNamesTheCommandThatPullsTheRecommendedOne(t *testing.T) {
	t.Setenv("PROTOTYPER_DB", "")
	for _, tc := range []struct {
		name, tags, says string
	}{
		{"a server without models", `{"models":[]}`, "`prototyper pull " + ollama.RecommendedModel().Name + "`"},
		{"a server with models", `{"models":[{"name":"qwen3:0.6b"}]}`, "`prototyper models` lists them"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			url := ollamatest.Serve(t, ollamatest.Routes{"/api/tags": func(w http.ResponseWriter, r *http.Request) {
				fmt.Fprint(w, tc.tags)
			}})
			code, _, errOut := runCLI(context.Background(), "--ollama", url, "--db", filepath.Join(t.TempDir(), "p.db"),
				"--workspace", t.TempDir(), "hi")
			if code != ExitFailed || strings.Count(errOut, "\n") != 1 || !strings.Contains(errOut, tc.says) {
				t.Errorf("exit %d, stderr %q; want exit 1 and one line saying %s", code, errOut, tc.says)
			}
		})
	}
}
