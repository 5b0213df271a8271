package tests

import (
	"bufio"
	"bytes"
	"encoding/pem"
	"io"
	"net/http"
	"net/http/httptest"
	"net/http/httputil"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"prototyper/internal/ollamatest"
)

// The failures of the OpenAI-compatible provider, and the remote servers of both: the
// scenarios both providers share run for each (eachProvider, in cli_test.go and the window's
// tests).

func TestCLIRunOverTheOpenAICompatibleAPIFailuresAreOneClearLine(t *testing.T) {
	srv := ollamatest.Get(t)
	for _, tc := range []struct {
		name string
		args []string
		env  []string
		code int
		says string
	}{
		{"a model the server does not serve", []string{"--base-url", srv.URL() + "/v1", "--model", "no-such-model"}, nil, 1, `does not serve model "no-such-model"`},
		{"nothing at the address", []string{"--base-url", "http://127.0.0.1:1/v1", "--model", "m"}, nil, 1, "nothing answers at http://127.0.0.1:1/v1"},
		{"no base URL", []string{"--model", "m"}, nil, 2, "--provider openai needs --base-url"},
		{"a key variable that is not set", []string{"--base-url", srv.URL(), "--api-key-env", "PROTOTYPER_TEST_NO_SUCH_KEY", "--model", "m"}, nil, 2, "PROTOTYPER_TEST_NO_SUCH_KEY holds no key"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			args := append([]string{"run", "--provider", "openai", "--db", filepath.Join(t.TempDir(), "p.db"), "--workspace", t.TempDir()}, tc.args...)
			_, errOut, code := cliRunEnv(t, tc.env, append(args, "hi")...)
			if code != tc.code || !strings.Contains(errOut, tc.says) || strings.Count(strings.TrimSpace(errOut), "\n") > 0 {
				t.Errorf("exit %d, stderr %q; want exit %d and one line saying %q", code, errOut, tc.code, tc.says)
			}
		})
	}
}

// tokenProxy is a TLS reverse proxy on loopback in front of the real server that wants
// "Authorization: Bearer token"; it returns the proxy, the CA file that trusts it, and the
// count of requests it refused.
func tokenProxy(t *testing.T, upstream, token string) (*httptest.Server, string, *atomic.Int32) {
	t.Helper()
	target, err := url.Parse(upstream)
	if err != nil {
		t.Fatal(err)
	}
	proxy := httputil.NewSingleHostReverseProxy(target)
	var refused atomic.Int32
	srv := httptest.NewTLSServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Header.Get("Authorization") != "Bearer "+token {
			refused.Add(1)
			w.Header().Set("Content-Type", "text/html")
			w.WriteHeader(http.StatusUnauthorized)
			_, _ = w.Write([]byte("<html><body>401 Authorization Required</body></html>"))
			return
		}
		proxy.ServeHTTP(w, r)
	}))
	t.Cleanup(srv.Close)
	ca := filepath.Join(t.TempDir(), "proxy-ca.pem")
	if err := os.WriteFile(ca, pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: srv.Certificate().Raw}), 0o600); err != nil {
		t.Fatal(err)
	}
	return srv, ca, &refused
}

// pacedProxy is a proxy on loopback in front of the server at upstream that passes a chat's
// answer on line by line, the first lines gap apart: a model that thinks slowly, so that a
// test sees what the window paints while the thinking streams. It returns its URL.
func pacedProxy(t *testing.T, upstream string, lines int, gap time.Duration) string {
	t.Helper()
	return pacedAnswers(t, upstream, lines, gap, -1)
}

// pacedAnswers is [pacedProxy] pacing only the first answers chats (answers < 0: every one):
// a test that stops the first answer mid-stream gets the later ones at the server's pace.
func pacedAnswers(t *testing.T, upstream string, lines int, gap time.Duration, answers int) string {
	t.Helper()
	target, err := url.Parse(upstream)
	if err != nil {
		t.Fatal(err)
	}
	var paced atomic.Int64
	proxy := httputil.NewSingleHostReverseProxy(target)
	proxy.FlushInterval = -1 // every line as it is read
	proxy.ModifyResponse = func(resp *http.Response) error {
		if strings.HasSuffix(resp.Request.URL.Path, "/chat") || strings.HasSuffix(resp.Request.URL.Path, "/chat/completions") {
			if answers < 0 || paced.Add(1) <= int64(answers) {
				resp.Body = &pacedBody{ReadCloser: resp.Body, lines: bufio.NewReader(resp.Body), left: lines, gap: gap}
			}
		}
		return nil
	}
	srv := httptest.NewServer(proxy)
	t.Cleanup(srv.Close)
	return srv.URL
}

// pacedBody reads one line at a time, waiting gap before each of the first left lines that
// hold something.
type pacedBody struct {
	io.ReadCloser
	lines   *bufio.Reader
	pending []byte
	left    int
	gap     time.Duration
}

func (b *pacedBody) Read(p []byte) (int, error) {
	if len(b.pending) == 0 {
		line, err := b.lines.ReadBytes('\n')
		if len(line) == 0 {
			return 0, err
		}
		if b.left > 0 && len(bytes.TrimSpace(line)) > 0 {
			b.left--
			time.Sleep(b.gap)
		}
		b.pending = line
	}
	n := copy(p, b.pending)
	b.pending = b.pending[n:]
	return n, nil
}

// TestCLIRunAgainstARemoteOllamaBehindATLSProxyThatWantsAToken: the native client reaches
// the real server through https with the token from --api-key-env; without it, the proxy's
// 401 is one sentence that says how to give one, and the token never reaches the output.
func TestCLIRunAgainstARemoteOllamaBehindATLSProxyThatWantsAToken(t *testing.T) {
	srv := ollamatest.Get(t)
	const token = "s3cret-token-for-the-proxy"
	proxy, ca, refused := tokenProxy(t, srv.URL(), token)
	env := []string{"SSL_CERT_FILE=" + ca, "PROTOTYPER_TEST_TOKEN=" + token}
	db := filepath.Join(t.TempDir(), "p.db")

	ws := t.TempDir()
	out, errOut, code := cliRunEnv(t, env, "run", "--ollama", proxy.URL, "--api-key-env", "PROTOTYPER_TEST_TOKEN", "--db", db,
		"--workspace", ws, "--model", writerModel.Name, "--think", "on", "--approve", "auto", "Write hello.txt")
	if code != 0 || !strings.Contains(out, "I wrote `hello.txt` with a greeting.") {
		t.Fatalf("with the token: exit %d\n%s%s", code, out, errOut)
	}
	if refused.Load() != 0 {
		t.Errorf("the proxy refused %d requests that carried the token", refused.Load())
	}

	out, errOut, code = cliRunEnv(t, env, "run", "--ollama", proxy.URL, "--db", db, "--workspace", t.TempDir(),
		"--model", writerModel.Name, "--approve", "auto", "Write hello.txt")
	if code != 1 || !strings.Contains(errOut, "wants a token (HTTP 401)") || !strings.Contains(errOut, "--api-key-env") {
		t.Errorf("without the token: exit %d, stderr %q; want one sentence saying how to give a token", code, errOut)
	}
	if strings.Contains(out+errOut, token) {
		t.Error("the token appears in the output")
	}

	// the same proxy in front of Ollama's /v1, through the OpenAI-compatible provider
	out, errOut, code = cliRunEnv(t, env, "run", "--provider", "openai", "--base-url", proxy.URL+"/v1", "--api-key-env", "PROTOTYPER_TEST_TOKEN",
		"--db", db, "--workspace", t.TempDir(), "--model", writerModel.Name, "--approve", "auto", "Write hello.txt")
	if code != 0 || !strings.Contains(out, "I wrote `hello.txt` with a greeting.") {
		t.Errorf("openai provider with the token: exit %d\n%s%s", code, out, errOut)
	}
	if data, err := os.ReadFile(db); err == nil && strings.Contains(string(data), token) {
		t.Error("the token is in the chat database")
	}
}

func TestCLIModelsListsTheOpenAICompatibleServersModels(t *testing.T) {
	srv := ollamatest.Get(t)
	out, errOut, code := cliRun(t, "models", "--provider", "openai", "--base-url", srv.URL()+"/v1")
	if code != 0 || !strings.Contains(out, "NAME") || !strings.Contains(out, writerModel.Name+":latest") {
		t.Errorf("exit %d\n%s%s", code, out, errOut)
	}
}
