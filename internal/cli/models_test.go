package cli

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"net"
	"net/http"
	"strings"
	"testing"

	"prototyper/internal/ollamatest"
	"prototyper/model/ollama"
)

// fakeOllama serves /api/tags, /api/show and /api/pull the way Ollama does.
func fakeOllama(t *testing.T, pullLines ...string) string {
	t.Helper()
	return ollamatest.Serve(t, ollamatest.Routes{
		"/api/tags": func(w http.ResponseWriter, r *http.Request) {
			_, _ = io.WriteString(w, `{"models":[{"name":"qwen3:0.6b","size":522653767,"details":{"parameter_size":"751.63M"}},{"name":"gemma3:1b","size":815319791,"details":{"parameter_size":"999.89M"}}]}`)
		},
		"/api/show": func(w http.ResponseWriter, r *http.Request) {
			var req struct{ Model string }
			_ = json.NewDecoder(r.Body).Decode(&req)
			if req.Model == "qwen3:0.6b" {
				_, _ = io.WriteString(w, `{"template":"x","capabilities":["completion","tools","thinking"],"model_info":{"general.architecture":"qwen3","qwen3.context_length":40960}}`)
			} else {
				_, _ = io.WriteString(w, `{"template":"x","capabilities":["completion","vision"],"model_info":{"general.architecture":"gemma3","gemma3.context_length":32768}}`)
			}
		},
		"/api/pull": ollamatest.PullLines(pullLines...),
	})
}

// runCmd runs a command (modelsCommand, pullCommand…) in process, without a terminal.
func runCmd(cmd func(context.Context, []string, IO) int, args ...string) (code int, out, errOut string) {
	return runIn(context.Background(), cmd, args...)
}

// runIn runs cmd with args in process, with no input and without a terminal, and returns its
// exit status and what it wrote.
func runIn(ctx context.Context, cmd func(context.Context, []string, IO) int, args ...string) (code int, out, errOut string) {
	var o, e bytes.Buffer
	code = cmd(ctx, args, IO{In: strings.NewReader(""), Out: &o, Err: &e})
	return code, o.String(), e.String()
}

func TestModelsListsNameSizeCapabilitiesContextAndVision(t *testing.T) {
	code, out, errOut := runCmd(modelsCommand, "--ollama", fakeOllama(t))
	if code != ExitCompleted {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	lines := strings.Split(strings.TrimSpace(out), "\n")
	if len(lines) != 3 {
		t.Fatalf("output:\n%s", out)
	}
	for i, want := range [][]string{
		{"NAME", "SIZE", "PARAMS", "TOOLS", "THINKING", "CONTEXT", "VISION", "CHECK"},
		{"gemma3:1b", "815", "MB", "999.89M", "no", "no", "32768", "yes", "-"},
		{"qwen3:0.6b", "523", "MB", "751.63M", "yes", "yes", "40960", "no", "-"},
	} {
		if got := strings.Fields(lines[i]); strings.Join(got, " ") != strings.Join(want, " ") {
			t.Errorf("line %d = %q, want %q", i, got, want)
		}
	}
}

func TestOllamaCommandsFailWithOneClearLine(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	down := "http://" + ln.Addr().String()
	ln.Close()
	t.Setenv("PATH", t.TempDir()) // no ollama to start at down
	for _, tc := range []struct {
		name string
		cmd  func(context.Context, []string, IO) int
		args []string
		code int
		says string
	}{
		{"models without a server", modelsCommand, []string{"--ollama", down}, ExitFailed, "Ollama is not running at " + down},
		{"pull without a server", pullCommand, []string{"--ollama", down, "qwen3:0.6b"}, ExitFailed, "Ollama is not running at " + down},
		{"pull without a name", pullCommand, nil, ExitUsage, "name one model"},
		{"models with a bad address", modelsCommand, []string{"--ollama", "ftp://x"}, ExitUsage, "--ollama must be a URL such as http://127.0.0.1:11434"},
		{"pull without internet", pullCommand, []string{"--ollama", fakeOllama(t, `{"error":"pull model manifest: dial tcp: lookup registry.ollama.ai: no such host"}`), "qwen3:0.6b"}, ExitFailed, "could not download qwen3:0.6b because it cannot reach the model registry (no such host)"},
		{"pull of an unknown model", pullCommand, []string{"--ollama", fakeOllama(t, `{"status":"pulling manifest"}`, `{"error":"pull model manifest: file does not exist"}`), "nope:1b"}, ExitFailed, "no model \"nope:1b\" in the Ollama library"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			code, _, errOut := runCmd(tc.cmd, tc.args...)
			if code != tc.code || !strings.Contains(errOut, tc.says) {
				t.Errorf("exit %d, stderr %q; want exit %d saying %q", code, errOut, tc.code, tc.says)
			}
			if first := strings.SplitN(errOut, "\n", 2)[0]; !strings.HasPrefix(first, "prototyper ") {
				t.Errorf("first line %q does not name the command", first)
			}
		})
	}
}

// One model is recommended to start with, and every command that suggests one names it:
// `models` on an empty server, `pull` without a name and its help (`run` without a model is
// TestRunWithoutAModelOnAnEmptyServerNamesTheCommandThatPullsTheRecommendedOne).
func TestEveryCommandThatSuggestsAModelNamesTheRecommendedOne(t *testing.T) {
	want := "prototyper pull " + ollama.RecommendedModel().Name
	empty := ollamatest.Serve(t, ollamatest.Routes{"/api/tags": func(w http.ResponseWriter, _ *http.Request) {
		_, _ = io.WriteString(w, `{"models":[]}`)
	}})
	if code, out, errOut := runCmd(modelsCommand, "--ollama", empty); code != ExitCompleted || !strings.Contains(out, want) {
		t.Errorf("models on an empty server: exit %d, %q %q; want it to suggest `%s`", code, out, errOut, want)
	}
	if code, _, errOut := runCmd(pullCommand); code != ExitUsage || !strings.Contains(errOut, want) {
		t.Errorf("pull without a name: exit %d, %q; want it to suggest `%s`", code, errOut, want)
	}
	if _, _, errOut := runCmd(pullCommand, "--help"); !strings.Contains(errOut, ollama.RecommendedModel().Name) {
		t.Errorf("pull --help %q does not name %s", errOut, ollama.RecommendedModel().Name)
	}
}
