// Package tests holds the cross-package tests: the real window under Xvfb (desktop smoke and
// end-to-end tests against a real Ollama server with scripted models), and the crash and
// fault tests of the store.
package tests

import (
	"fmt"
	"os"
	"slices"
	"testing"

	"prototyper/internal/ollamatest"
	"prototyper/store"
)

// Scripted models of the cross-package tests. A model's Scripts are keyed by the trail of the
// conversation so far, one letter per message in order: S the system prompt, U a user message,
// A an assistant message, T a tool result, and I for each image a message carries (after its
// letter). So "SU" answers the first message, "SUAT" the turn after its first tool call's
// result, "SUATAT" the turn after the second, and "SUATAU" a second user message; "*"
// (ollamatest.Fallback) answers any trail without a script of its own. The agent always sends a
// system prompt, so every trail starts with S. (internal/ollamatest/scripts.go is where the
// trail is made.)
var (
	// writerModel thinks, writes hello.txt, then answers.
	writerModel = ollamatest.Model{Name: "e2e-writer", Scripts: ollamatest.Scripts{
		"SU": slices.Concat(
			ollamatest.Think("The user wants a file.", " I should write hello.txt."),
			ollamatest.ToolCall("write_file", map[string]any{"path": "hello.txt", "content": "hello from Prototyper\n"}),
		),
		"SUAT": slices.Concat(
			ollamatest.Think("The file is written."),
			[]string{"I wrote ", "`hello.txt`", " with a greeting."},
		),
	}}

	// folderModel writes where.txt at every message of the user, then answers: where the file
	// lands is the folder the chat ran in.
	folderModel = ollamatest.Model{Name: "e2e-folders", Scripts: folderScripts()}

	// clobberModel tries to overwrite the app's database, which sits in the workspace, then
	// answers.
	clobberModel = ollamatest.Model{Name: "e2e-clobber", Scripts: ollamatest.Scripts{
		"SU":   ollamatest.ToolCall("write_file", map[string]any{"path": "prototyper.db", "content": "gone\n"}),
		"SUAT": []string{"I tried."},
	}}

	// fiveCallsModel calls an instant tool five times in a row, one call per turn, then answers.
	fiveCallsModel = ollamatest.Model{Name: "e2e-five", Scripts: fiveCallScripts()}

	// mcpEchoModel calls the reference MCP server's echo tool, then answers.
	mcpEchoModel = ollamatest.Model{Name: "e2e-mcp-echo", Scripts: ollamatest.Scripts{
		"SU": slices.Concat(
			ollamatest.Think("The echo tool can say it."),
			ollamatest.ToolCall("mcp__everything__echo", map[string]any{"message": "hello through MCP"}),
		),
		"SUAT": slices.Concat(ollamatest.Think("It answered."), []string{"The server ", "echoed it."}),
	}}

	// mcpLongModel calls the reference MCP server's long operation (three steps of two seconds,
	// each reported as progress), then answers.
	mcpLongModel = ollamatest.Model{Name: "e2e-mcp-long", Scripts: ollamatest.Scripts{
		"SU":   ollamatest.ToolCall(mcpLongOperation, map[string]any{"duration": 6, "steps": 3}),
		"SUAT": []string{"The operation ", "finished."},
	}}

	// mcpHangModel calls the long operation for ten minutes in one step, a call the server
	// accepts and answers within no test, then answers whatever the call's result.
	mcpHangModel = ollamatest.Model{Name: "e2e-mcp-hang", Scripts: ollamatest.Scripts{
		"SU":   ollamatest.ToolCall(mcpLongOperation, map[string]any{"duration": 600, "steps": 1}),
		"SUAT": []string{"The server ", "did not finish."},
	}}

	// longAnswerModel thinks briefly, then streams a long answer: long enough to close the
	// window while it streams.
	longAnswerModel = ollamatest.Model{Name: "e2e-long", Scripts: ollamatest.Scripts{
		"SU": slices.Concat(ollamatest.Think("A long answer."), longAnswerPieces()),
	}}

	// cutModel thinks, begins its answer, then loops on a blank token until the server cuts
	// it off (Ollama ends a reply whose token repeats more than 30 times without finishing
	// it: no done:true on /api/chat, neither [DONE] nor a finish_reason on /v1).
	cutModel = ollamatest.Model{Name: "e2e-cut", Scripts: ollamatest.Scripts{
		"SU": slices.Concat(ollamatest.Think(cutThinking...), cutAnswer, slices.Repeat([]string{"\n"}, 40), []string{"never said"}),
	}}
	cutThinking = []string{"The user", " wants an", " explanation."}
	cutAnswer   = []string{"The answer", " begins", " here."}

	// paragraphModel thinks, then streams a paragraph of 250 words: long enough to kill its
	// runner mid-way (ollamatest.Server.KillRunner), or, behind a proxy that paces it
	// (pacedProxy), to type and stop while it streams. Its small vocabulary keeps it quick to
	// read a prompt, where longAnswerModel's takes seconds.
	paragraphModel = ollamatest.Model{Name: "e2e-paragraph", Scripts: ollamatest.Scripts{
		"SU": slices.Concat(ollamatest.Think(cutThinking[0]), paragraphPieces()),
	}}

	// crashingModel answers as paragraphModel does, then goes on for 1,500 words more: long
	// enough (seconds) that a test kills its runner while the answer streams, where
	// paragraphModel's could end first on a fast or idle runner.
	crashingModel = ollamatest.Model{Name: "e2e-crashing", Scripts: ollamatest.Scripts{
		"SU": slices.Concat(ollamatest.Think(cutThinking[0]), paragraphPieces(), longAnswerPieces()),
	}}

	// chattyModel answers every message with paragraphModel's paragraph: a few turns make a
	// chat longer than the window.
	chattyModel = ollamatest.Model{Name: "e2e-chatty", Scripts: ollamatest.Scripts{ollamatest.Fallback: paragraphPieces()}}

	// longChattyModel answers every message with the text of 1,500 tokens (longChattyPieces): a
	// chat of hours in a few minutes.
	longChattyModel = ollamatest.Model{Name: "e2e-long-chatty", Scripts: ollamatest.Scripts{ollamatest.Fallback: longChattyPieces()}}

	// tableModel answers with a table of one row followed by a line of a tab, then a sentence.
	tableModel = ollamatest.Model{Name: "e2e-table", Scripts: ollamatest.Scripts{
		"SU": {"| Name | Size |\n", "|---|---|\n", "| index.html | 1 KB |\n", "\t\n", "After the table."},
	}}
)

// longAnswerPieces is the long answer, one distinct token per word.
func longAnswerPieces() []string {
	pieces := make([]string, 1500)
	for i := range pieces {
		pieces[i] = fmt.Sprintf("word%d ", i)
	}
	return pieces
}

// paragraphPieces is paragraphModel's answer, one distinct token per word.
func paragraphPieces() []string {
	pieces := make([]string, 250)
	for i := range pieces {
		pieces[i] = fmt.Sprintf("part%d ", i)
	}
	return pieces
}

// folderScripts answers up to four messages of one chat (and any first one) by writing
// where.txt, then saying so.
func folderScripts() ollamatest.Scripts {
	s := ollamatest.Scripts{}
	trail := "SU"
	for range 4 {
		s[trail] = ollamatest.ToolCall("write_file", map[string]any{"path": "where.txt", "content": "here\n"})
		s[trail+"AT"] = []string{"Wrote ", "where.txt", "."}
		trail += "ATAU"
	}
	return s
}

func fiveCallScripts() ollamatest.Scripts {
	s := ollamatest.Scripts{}
	trail := "SU"
	for i := range 5 {
		s[trail] = slices.Concat(
			ollamatest.Think("Look again."),
			ollamatest.ToolCall("list_dir", map[string]any{"path": ".", "depth": i + 1}),
		)
		trail += "AT"
	}
	s[trail] = slices.Concat(ollamatest.Think("Seen enough."), []string{"Listed the workspace ", "five times."})
	return s
}

// provider is the API through which a scenario reaches the real server: Ollama's native
// /api, or its OpenAI-compatible /v1 (the client any vLLM, llama.cpp or LM Studio server
// gets). The scripted models are the same, and so must be everything a user sees.
type provider string

// providers are the APIs every scenario of the model client runs through.
var providers = []provider{store.ProviderOllama, store.ProviderOpenAI}

// args are the flags that point `prototyper run` or the window at srv through p.
func (p provider) args(srv *ollamatest.Server) []string { return p.argsAt(srv.URL()) }

// argsAt are the flags that point at the Ollama server at url (or a proxy in front of it).
func (p provider) argsAt(url string) []string {
	if p == store.ProviderOpenAI {
		return []string{"--provider", store.ProviderOpenAI, "--base-url", url + "/v1"}
	}
	return []string{"--ollama", url}
}

// window is what the window's launch adds to reach the shared server through p.
func (p provider) window(t *testing.T) launchExtra {
	return withArgs(p.args(ollamatest.Get(t))...)
}

// eachProvider runs scenario once per provider, as a subtest named after it.
func eachProvider(t *testing.T, scenario func(t *testing.T, p provider)) {
	for _, p := range providers {
		t.Run(string(p), func(t *testing.T) { scenario(t, p) })
	}
}

// noSharedServer is set by a test binary whose tests start the servers they need (the
// moonshot's, moonshot_test.go): it starts none for them.
var noSharedServer bool

func TestMain(m *testing.M) {
	if noSharedServer || os.Getenv(crashChildEnv) != "" || os.Getenv(checkpointCrashEnv) != "" || os.Getenv(undoCrashEnv) != "" { // the crash tests' children need no server
		os.Exit(m.Run())
	}
	os.Exit(ollamatest.Main(m, writerModel, fiveCallsModel, longAnswerModel, clobberModel, badArgsModel, folderModel, twoRunsModel, mcpEchoModel, mcpLongModel, mcpHangModel, misbehavingModel, cardsModel, noterModel, seeingModel, cutModel, paragraphModel, failedEditModel, echoerModel, textWriterModel, configWriterModel, deleteBuildModel, commandLoopModel, commandCrashModel, patientEchoerModel, hiddenTailModel, acpWriterModel, acpReaderModel, acpCommanderModel, previewFixModel, previewAttackModel, acpSleeperModel, devServerModel, checkNativeModel, checkNeverModel, checkTextModel, checkSleeperModel, unreadableCallerModel, previewShotModel, chattyModel, tableModel, emptyModel, createEditDeleteModel, pausedRunModel, longChattyModel, crashingModel))
}
