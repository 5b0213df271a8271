package cli

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"prototyper/internal/ollamatest"
	"prototyper/model/vocab"
	"prototyper/store"
)

// What a model server can do to `prototyper run`, over both providers: an answer without
// end, a key echoed back, a redirect elsewhere.

// provider is a stand-in model server of one API.
type provider struct {
	name string
	// serve stands the server, answering a chat with chat, and returns the flags that point
	// `run` at it.
	serve func(t *testing.T, chat http.HandlerFunc) []string
	// endless are answers that never end, by what they repeat.
	endless map[string]http.HandlerFunc
}

var providers = []provider{
	{
		name: "ollama",
		serve: func(t *testing.T, chat http.HandlerFunc) []string {
			return []string{"--ollama", newRunServer(t, nil, chat).URL}
		},
		endless: map[string]http.HandlerFunc{
			"content": repeatForEver("application/x-ndjson", "",
				`{"message":{"role":"assistant","content":"all work and no play "},"done":false}`+"\n"),
			"tool calls": repeatForEver("application/x-ndjson", "",
				`{"message":{"role":"assistant","content":"","tool_calls":[{"function":{"name":"write_file","arguments":{"path":"a.txt","content":"all work and no play"}}}]},"done":false}`+"\n"),
		},
	},
	{
		name: "openai",
		serve: func(t *testing.T, chat http.HandlerFunc) []string {
			return []string{"--provider", "openai", "--base-url", ollamatest.Serve(t, ollamatest.Routes{"/v1/chat/completions": chat}) + "/v1"}
		},
		endless: map[string]http.HandlerFunc{
			"content": repeatForEver("text/event-stream", "",
				`data: {"choices":[{"index":0,"delta":{"content":"all work and no play "}}]}`+"\n\n"),
			"tool-call arguments": repeatForEver("text/event-stream",
				`data: {"choices":[{"index":0,"delta":{"tool_calls":[{"index":0,"id":"c1","function":{"name":"write_file","arguments":""}}]}}]}`+"\n\n",
				`data: {"choices":[{"index":0,"delta":{"tool_calls":[{"index":0,"function":{"arguments":"all work and no play "}}]}}]}`+"\n\n"),
			"data lines without a blank line": repeatForEver("text/event-stream", "",
				`data: {"choices":[{"index":0,"delta":{"content":"all work and no play "}}]}`+"\n"),
		},
	},
}

// repeatForEver writes first, then piece until the client goes away.
func repeatForEver(contentType, first, piece string) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", contentType)
		io.WriteString(w, first)
		chunk := []byte(strings.Repeat(piece, max(1, 32<<10/len(piece))))
		for r.Context().Err() == nil {
			if _, err := w.Write(chunk); err != nil {
				return
			}
		}
	}
}

// runArgs are the flags of a run in a fresh database and workspace, then extra.
func runArgs(t *testing.T, db string, server []string, extra ...string) []string {
	t.Setenv("PROTOTYPER_DB", "")
	return append(append([]string{"--db", db, "--workspace", t.TempDir(), "--model", "m"}, server...), extra...)
}

func TestRunCutsAnEndlessAnswerAtTheAnswerSizeAndKeepsWhatFit(t *testing.T) {
	const limit = 256 << 10
	for _, p := range providers {
		for what, answer := range p.endless {
			t.Run(p.name+"/"+what, func(t *testing.T) {
				db := filepath.Join(t.TempDir(), "p.db")
				args := runArgs(t, db, p.serve(t, answer), "--max-answer-size", "256KiB", "hi")
				code, _, errOut := runCLI(ollamatest.Context(t), args...)
				if strings.Contains(what, "data lines") {
					// one event that never ends is a line over the line limit, whatever the answer size
					if code != ExitFailed || !strings.Contains(errOut, "longer than 16 MiB") {
						t.Fatalf("exit %d, stderr %q; want the line limit", code, errOut)
					}
					return
				}
				if code != ExitFailed {
					t.Fatalf("exit %d, stderr %q", code, errOut)
				}
				checkOneLine(t, errOut, "passed 256 KiB", "was cut there", "--max-answer-size")
				if what == "content" {
					text, notes := storedAnswer(t, db)
					if len(text) > limit || len(text) < limit-100 {
						t.Errorf("the stored answer holds %d bytes; want what fit of %d", len(text), limit)
					}
					if len(notes) != 1 || notes[0].Code != vocab.CodeAnswerTooLong {
						t.Errorf("notes %+v; want one answer_too_long", notes)
					}
				} else if chats := storedChats(t, db); len(chats) != 0 { // calls cut are never run nor kept
					t.Errorf("%d chats kept for an answer of nothing but cut calls", len(chats))
				}
				if fi, err := os.Stat(db); err != nil || fi.Size() > 16*limit {
					t.Errorf("the database grew to %d bytes for an answer of %d", fi.Size(), limit)
				}
			})
		}
	}
}

// storedAnswer is what the one chat of db keeps of its answer (text and thinking), with the
// notes of its runs.
func storedAnswer(t *testing.T, path string) (text string, notes []store.RunNote) {
	t.Helper()
	readStored(t, path, func(db *store.DB) {
		t.Helper()
		chats, err := db.ListChats()
		if err != nil || len(chats) != 1 {
			t.Fatalf("chats %+v, %v; want the one of the run", chats, err)
		}
		msgs, err := db.Messages(chats[0].ID)
		if err != nil {
			t.Fatal(err)
		}
		for _, m := range msgs {
			if m.Role == store.RoleAssistant {
				text += m.Content + m.Thinking
			}
		}
		runs, err := db.RunsOf(chats[0].ID)
		if err != nil {
			t.Fatal(err)
		}
		for _, r := range runs {
			notes = append(notes, r.Notes...)
		}
	})
	return text, notes
}

// TestHelperRunProcess is `prototyper run` in a process of its own for the tests that
// measure it; it does nothing unless PROTOTYPER_TEST_RUN_ARGS holds the arguments.
func TestHelperRunProcess(t *testing.T) {
	raw := os.Getenv("PROTOTYPER_TEST_RUN_ARGS")
	if raw == "" {
		return
	}
	var args []string
	if err := json.Unmarshal([]byte(raw), &args); err != nil {
		t.Fatal(err)
	}
	var out bytes.Buffer
	code := Main(append([]string{"run"}, args...), IO{In: strings.NewReader(""), Out: &out, Err: os.Stderr})
	os.Exit(code)
}

// rssCeiling is the most a run may hold, however much a server sends: the process, the
// answer at its default size limit and its saves, with room to spare (under the race
// detector, its shadow memory too). Without a limit the same run took gigabytes in seconds.
func rssCeiling() int64 {
	if raceDetector {
		return 1 << 30
	}
	return 256 << 20
}

func TestRunStaysWithinItsMemoryWhateverAServerSends(t *testing.T) {
	if testing.Short() {
		t.Skip("streams the default answer size limit in full")
	}
	for _, p := range providers {
		for what, answer := range p.endless {
			t.Run(p.name+"/"+what, func(t *testing.T) {
				db := filepath.Join(t.TempDir(), "p.db")
				args, _ := json.Marshal(runArgs(t, db, p.serve(t, answer), "hi"))
				ctx := ollamatest.Context(t)
				cmd := exec.CommandContext(ctx, os.Args[0], "-test.run=^TestHelperRunProcess$")
				cmd.Env = append(os.Environ(), "PROTOTYPER_TEST_RUN_ARGS="+string(args))
				var errOut bytes.Buffer
				cmd.Stderr = &errOut
				if err := cmd.Start(); err != nil {
					t.Fatal(err)
				}
				// a run past the ceiling is stopped at once: the machine is not this test's to fill
				var over atomic.Bool
				done := make(chan struct{})
				go func() {
					for {
						select {
						case <-done:
							return
						case <-time.After(20 * time.Millisecond):
						}
						if rss := residentBytes(cmd.Process.Pid); rss > rssCeiling() {
							over.Store(true)
							_ = cmd.Process.Kill()
							return
						}
					}
				}()
				err := cmd.Wait()
				close(done)
				peak := int64(cmd.ProcessState.SysUsage().(*syscall.Rusage).Maxrss) << 10
				t.Logf("peak RSS %d MiB, database %d MiB: %s", peak>>20, fileSize(db)>>20, strings.TrimSpace(errOut.String()))
				if over.Load() || peak > rssCeiling() {
					t.Fatalf("the run held more than %d MiB (peak %d MiB) and was killed", rssCeiling()>>20, peak>>20)
				}
				if code := cmd.ProcessState.ExitCode(); code != ExitFailed {
					t.Fatalf("exit %d (%v), stderr %s", code, err, errOut.String())
				}
				// each save of the growing answer rewrites it, and the file keeps the pages it freed
				if fileSize(db) > 8*vocab.DefaultMaxAnswerSize {
					t.Errorf("the database grew to %d MiB", fileSize(db)>>20)
				}
			})
		}
	}
}

// residentBytes is the resident memory of process pid (0 when it cannot be read).
func residentBytes(pid int) int64 {
	raw, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", pid))
	if err != nil {
		return 0
	}
	for _, line := range strings.Split(string(raw), "\n") {
		if f := strings.Fields(line); len(f) >= 2 && f[0] == "VmRSS:" {
			kb, _ := strconv.ParseInt(f[1], 10, 64)
			return kb << 10
		}
	}
	return 0
}

func fileSize(path string) int64 {
	fi, err := os.Stat(path)
	if err != nil {
		return 0
	}
	return fi.Size()
}

const echoedKey = "sk-proj-0123456789abcdefSECRET"

func TestRunNeverShowsOrStoresTheKeyAServerEchoes(t *testing.T) {
	for _, p := range providers {
		for what, answer := range map[string]http.HandlerFunc{
			"in an error body": func(w http.ResponseWriter, r *http.Request) {
				w.WriteHeader(http.StatusBadRequest)
				fmt.Fprintf(w, `{"error":"bad header Authorization: %s"}`, r.Header.Get("Authorization"))
			},
			"in the answer": func(w http.ResponseWriter, r *http.Request) {
				key := strings.TrimPrefix(r.Header.Get("Authorization"), "Bearer ")
				if p.name == "ollama" {
					fmt.Fprintf(w, `{"message":{"role":"assistant","content":"your key is %s"},"done":true,"done_reason":"stop"}`+"\n", key)
					return
				}
				w.Header().Set("Content-Type", "text/event-stream")
				fmt.Fprintf(w, `data: {"choices":[{"index":0,"delta":{"content":"your key is %s"},"finish_reason":"stop"}]}`+"\n\ndata: [DONE]\n\n", key)
			},
		} {
			t.Run(p.name+"/"+what, func(t *testing.T) {
				t.Setenv("PROTOTYPER_TEST_KEY", echoedKey)
				db := filepath.Join(t.TempDir(), "p.db")
				for _, asJSON := range []bool{false, true} {
					args := runArgs(t, db, p.serve(t, answer), "--api-key-env", "PROTOTYPER_TEST_KEY")
					if asJSON {
						args = append(args, "--json")
					}
					_, out, errOut := runCLI(ollamatest.Context(t), append(args, "hi")...)
					if strings.Contains(out+errOut, "0123456789abcdef") {
						t.Fatalf("the key was printed:\n%s%s", out, errOut)
					}
					if !strings.Contains(out+errOut, "[key hidden]") {
						t.Errorf("nothing says where the key was:\n%s%s", out, errOut)
					}
				}
				raw, err := os.ReadFile(db)
				if err != nil {
					t.Fatal(err)
				}
				if bytes.Contains(raw, []byte("0123456789abcdef")) {
					t.Fatal("the key is in the database file")
				}
			})
		}
	}
}

func TestRunDoesNotFollowARedirectToAnotherServer(t *testing.T) {
	for _, p := range providers {
		t.Run(p.name, func(t *testing.T) {
			t.Setenv("PROTOTYPER_TEST_KEY", echoedKey)
			var reached atomic.Int32
			elsewhere := ollamatest.Serve(t, ollamatest.Routes{
				"/api/chat":            func(http.ResponseWriter, *http.Request) { reached.Add(1) },
				"/v1/chat/completions": func(http.ResponseWriter, *http.Request) { reached.Add(1) },
			})
			db := filepath.Join(t.TempDir(), "p.db")
			args := runArgs(t, db, p.serve(t, func(w http.ResponseWriter, r *http.Request) {
				http.Redirect(w, r, elsewhere+r.URL.Path, http.StatusTemporaryRedirect)
			}), "--api-key-env", "PROTOTYPER_TEST_KEY", "my private conversation")
			code, _, errOut := runCLI(ollamatest.Context(t), args...)
			if code != ExitFailed || reached.Load() != 0 {
				t.Fatalf("exit %d, %d requests reached the other server", code, reached.Load())
			}
			checkOneLine(t, errOut, elsewhere, "was not followed")
		})
	}
}

func TestRunMaxAnswerSizeIsASizeWithinTheSettingsBounds(t *testing.T) {
	for value, says := range map[string]string{
		"lots":  "is not a size: write it as 8MiB",
		"1KiB":  "--max-answer-size must be between 64KiB and 1GiB",
		"2GiB":  "--max-answer-size must be between 64KiB and 1GiB",
		"-5MiB": "is not a size",
	} {
		code, _, errOut := runCLI(ollamatest.Context(t), "--max-answer-size", value, "hi")
		if code != ExitUsage || !strings.Contains(errOut, says) {
			t.Errorf("--max-answer-size %s: exit %d, %q; want a usage error saying %q", value, code, errOut, says)
		}
	}
}
