package acp

import (
	"context"
	"errors"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	sdk "github.com/coder/acp-go-sdk"
)

// TestNewSessionRefusesACwdThatIsNoFolderInOneSentenceTheEditorShows: a cwd that is relative,
// missing or a file creates no chat, and the error's message (what an editor shows) says
// which folder and what to do, rather than "Invalid params".
func TestNewSessionRefusesACwdThatIsNoFolderInOneSentenceTheEditorShows(t *testing.T) {
	s, _, _ := serverOn(t, io.Discard, strings.NewReader(""))
	file := filepath.Join(t.TempDir(), "notes.txt")
	if err := os.WriteFile(file, []byte("x"), 0o644); err != nil {
		t.Fatal(err)
	}
	missing := filepath.Join(t.TempDir(), "gone")
	for _, tc := range []struct{ cwd, want string }{
		{"src/site", "absolute"},
		{missing, missing},
		{file, file},
	} {
		_, err := s.NewSession(context.Background(), sdk.NewSessionRequest{Cwd: tc.cwd, McpServers: []sdk.McpServer{}})
		var re *sdk.RequestError
		if !errors.As(err, &re) || re.Code != -32602 {
			t.Errorf("cwd %q: error %v, want invalid params", tc.cwd, err)
			continue
		}
		if !strings.Contains(re.Message, tc.want) || !strings.Contains(re.Message, "folder") {
			t.Errorf("cwd %q: message %q, want a sentence naming %q and the folder wanted", tc.cwd, re.Message, tc.want)
		}
	}
	chats, err := s.cfg.DB.ListChats()
	if err != nil {
		t.Fatal(err)
	}
	if len(chats) != 1 {
		t.Errorf("%d chats, want only the one the test made: a refused cwd creates none", len(chats))
	}
}

// TestAPromptToAnUnknownSessionSaysHowToOpenOneInTheMessage: the sentence is the error's
// message, which every editor shows.
func TestAPromptToAnUnknownSessionSaysHowToOpenOneInTheMessage(t *testing.T) {
	s, _, _ := serverOn(t, io.Discard, strings.NewReader(""))
	_, err := s.Prompt(context.Background(), sdk.PromptRequest{SessionId: "nope", Prompt: []sdk.ContentBlock{sdk.TextBlock("hi")}})
	var re *sdk.RequestError
	if !errors.As(err, &re) || !strings.Contains(re.Message, `"nope"`) || !strings.Contains(re.Message, "session/new") {
		t.Errorf("error %v, want a message naming the session and session/new", err)
	}
}
