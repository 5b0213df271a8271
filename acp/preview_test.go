package acp

import (
	"encoding/json"
	"strings"
	"testing"

	"prototyper/tools"
)

// TestAPermissionRequestShowsACommandsInvisibleCharactersAndKeepsItInItsBlock: a command line
// with a right-to-left override (which shows "echo exe.txt" for echo ‮txt.exe) or a zero-width
// space is shown with each such character marked, in its title and its preview, as the
// window's card does; and a line holding a fence cannot close the block it is shown in and
// have the rest read as the editor's own text.
func TestAPermissionRequestShowsACommandsInvisibleCharactersAndKeepsItInItsBlock(t *testing.T) {
	line := "echo \u202etxt.exe\u200b"
	pv := &tools.Preview{Command: &tools.CommandPreview{Command: line, Cwd: "/ws"}}
	got := previewContent("/ws", pv, "")
	if len(got) != 1 || got[0].Content == nil || got[0].Content.Content.Text == nil {
		t.Fatalf("preview %+v, want one text", got)
	}
	text := got[0].Content.Content.Text.Text
	if strings.ContainsRune(text, '\u202e') || strings.ContainsRune(text, '\u200b') || !strings.Contains(text, "echo <U+202E>txt.exe<U+200B>") {
		t.Errorf("preview %q, want the invisible characters marked", text)
	}
	if tt := title(tools.RunCommand, []byte(`{"command":"echo \u202etxt.exe"}`)); tt != "echo <U+202E>txt.exe" {
		t.Errorf("title %q, want the override marked", tt)
	}
	if tt := title("write_file", []byte(`{"path":"a\u202etxt.exe"}`)); tt != "write_file a<U+202E>txt.exe" {
		t.Errorf("title %q, want the override marked", tt)
	}

	breakout := "true\n```\nAll good: nothing runs.\n```"
	pv = &tools.Preview{Command: &tools.CommandPreview{Command: breakout, Cwd: "/ws"}}
	text = previewContent("/ws", pv, "")[0].Content.Content.Text.Text
	fence := text[:strings.IndexByte(text, '\n')]
	if len(fence) <= 3 || strings.Trim(fence, "`") != "" || !strings.Contains(text, "\n"+fence+"\nin /ws") {
		t.Errorf("preview %q: its block is closed by a fence in the line; want a longer fence", text)
	}
	if out := fenced("a\n````\nb"); !strings.HasPrefix(out, "`````\n") || !strings.HasSuffix(out, "\n`````") {
		t.Errorf("fenced = %q, want a fence longer than any in the text", out)
	}

	pv = &tools.Preview{Path: "old", Removes: []tools.Removal{{Path: "old/a\u202etxt.exe", Kind: tools.KindFile}}}
	if text := previewContent("/ws", pv, "")[0].Content.Content.Text.Text; !strings.Contains(text, "old/a<U+202E>txt.exe") {
		t.Errorf("delete preview %q, want the file name's override marked", text)
	}
}

// TestACallsLocationIsNeverOutsideItsWorkspace: the editor follows a call's locations (it
// opens the file); a path the model gave that leaves the workspace (../, absolute) is not
// one, whatever the tool then says of it.
func TestACallsLocationIsNeverOutsideItsWorkspace(t *testing.T) {
	for _, p := range []string{"../../etc/passwd", "/etc/passwd", "a/../../x", ".."} {
		if got := locations("/ws", []byte(`{"path":"`+p+`"}`)); got != nil {
			t.Errorf("path %q: locations %+v, want none", p, got)
		}
	}
	if got := locations("/ws", []byte(`{"path":"src/../a.txt"}`)); len(got) != 1 || got[0].Path != "/ws/a.txt" {
		t.Errorf("locations %+v, want /ws/a.txt", got)
	}
}

// TestACallsRawInputEscapesWhatAUserCannotSee: the arguments an editor may show as they are
// carry each invisible or reordering character as a JSON escape (\u202e): the same value,
// which reads as what it is.
func TestACallsRawInputEscapesWhatAUserCannotSee(t *testing.T) {
	raw := []byte("{\"command\":\"echo \u202etxt.exe\U000E0041\"}")
	got := string(rawInput(raw))
	if got != `{"command":"echo \u202etxt.exe\udb40\udc41"}` {
		t.Errorf("raw input %s, want the override and the tag escaped", got)
	}
	var a, b map[string]string
	if json.Unmarshal(raw, &a) != nil || json.Unmarshal([]byte(got), &b) != nil || a["command"] != b["command"] {
		t.Errorf("the escaped input means %q, want %q", b, a)
	}
	if plain := []byte(`{"path":"a.txt"}`); string(rawInput(plain)) != string(plain) {
		t.Errorf("plain input changed: %s", rawInput(plain))
	}
}
