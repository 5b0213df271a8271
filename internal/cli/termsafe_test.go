package cli

import (
	"strings"
	"testing"
	"unicode/utf8"
)

func TestSanitizeRemovesWhatATerminalWouldObey(t *testing.T) {
	for _, tc := range []struct {
		name, in, want string
	}{
		{"plain text", "Hello, world", "Hello, world"},
		{"newlines and tabs stay", "a\tb\nc\n", "a\tb\nc\n"},
		{"unicode stays", "héllo → 世界 🙂", "héllo → 世界 🙂"},
		{"window title (OSC 0, BEL)", "before\x1b]0;pwned\x07after", "beforeafter"},
		{"window title (OSC 2, ST)", "x\x1b]2;pwned\x1b\\y", "xy"},
		{"hyperlink (OSC 8)", "\x1b]8;;http://evil\x1b\\click\x1b]8;;\x1b\\", "click"},
		{"clipboard write (OSC 52)", "\x1b]52;c;cm0gLXJmIH4=\x07ok", "ok"},
		{"unterminated OSC ends at the line", "a\x1b]0;title\nnext", "a\nnext"},
		{"clear screen", "\x1b[2J\x1b[Hclean", "clean"},
		{"colours", "\x1b[1;31mred\x1b[0m", "red"},
		{"private mode (hide cursor)", "\x1b[?25lx", "x"},
		{"cursor up over earlier lines", "ok\x1b[3A\x1b[2Kfake", "okfake"},
		{"two-byte sequences (save cursor, reset)", "\x1b7a\x1b8\x1bc", "a"},
		{"charset designation", "\x1b(0lqk\x1b(B", "lqk"},
		{"DCS string", "\x1bPq#0;2;0;0;0\x1b\\z", "z"},
		{"APC string", "\x1b_Gf=100;AAAA\x1b\\z", "z"},
		{"a lone ESC at the end", "text\x1b", "text"},
		{"a lone ESC before text", "\x1b\x01x", "x"},
		{"8-bit CSI", "a\u009b2Jb", "ab"},
		{"8-bit OSC with ST", "a\u009d0;t\u009cb", "ab"},
		{"other C1 controls", "a\u0085b\u008dc", "abc"},
		{"carriage return hides a line", "rm -rf /\rls", "rm -rf /ls"},
		{"backspace, bell, NUL, DEL", "a\bb\x07c\x00d\x7fe", "abcde"},
		{"bidi override (Trojan Source)", "access\u202e\u2066// admin\u2069\u2066", "access// admin"},
		{"bidi embeddings", "\u202aa\u202bb\u202cc\u202dd", "abcd"},
		{"invalid UTF-8", "a\xffb\xc2", "a\ufffdb\ufffd"},
		{"a raw 8-bit CSI byte", "a\x9b2Jb", "a\ufffd2Jb"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := Sanitize(tc.in); got != tc.want {
				t.Errorf("Sanitize(%q) = %q, want %q", tc.in, got, tc.want)
			}
		})
	}
}

func TestCellKeepsTableColumnsAndLines(t *testing.T) {
	if got := cell("a\tb\nc\x1b[31m"); got != "a b c" {
		t.Errorf("cell = %q", got)
	}
}

// checkTermSafe fails when out holds anything a terminal would act on.
func checkTermSafe(t *testing.T, in, out string) {
	t.Helper()
	if !utf8.ValidString(out) {
		t.Fatalf("Sanitize(%q) = %q: invalid UTF-8", in, out)
	}
	if loc := terminalControlRE.FindStringIndex(out); loc != nil {
		t.Fatalf("Sanitize(%q) = %q keeps %q", in, out, out[loc[0]:loc[1]])
	}
}

func FuzzSanitize(f *testing.F) {
	for _, s := range []string{
		"plain", "\x1b]0;t\x07", "\x1b[2J", "\u009b31m", "\u202e", "a\xffb", "\x1b", "\x1bP\x1b\\",
		"\x1b]8;;u\x1b\\l\x1b]8;;\x1b\\", "é\u009c", "\x1b[\xc3\xa9",
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, in string) {
		out := Sanitize(in)
		checkTermSafe(t, in, out)
		if again := Sanitize(out); again != out {
			t.Fatalf("not idempotent: %q → %q → %q", in, out, again)
		}
		if len(out) > len(in)*3 {
			t.Fatalf("grew from %d to %d bytes", len(in), len(out))
		}
		// text with nothing to remove is kept as it is
		if utf8.ValidString(in) && !terminalControlRE.MatchString(in) && out != in {
			t.Fatalf("Sanitize(%q) = %q changed safe text", in, out)
		}
		// split anywhere, each half sanitized alone is still safe
		for i := 0; i <= len(in); i += 1 + len(in)/7 {
			checkTermSafe(t, in, Sanitize(in[:i])+Sanitize(in[i:]))
		}
	})
}

func BenchmarkSanitizePlainText(b *testing.B) {
	s := strings.Repeat("The quick brown fox jumps over the lazy dog. ", 40)
	b.SetBytes(int64(len(s)))
	for b.Loop() {
		_ = Sanitize(s)
	}
}

func BenchmarkSanitizeWithEscapes(b *testing.B) {
	s := strings.Repeat("\x1b[1;31mred\x1b[0m and \x1b]0;title\x07 text ", 40)
	b.SetBytes(int64(len(s)))
	for b.Loop() {
		_ = Sanitize(s)
	}
}
