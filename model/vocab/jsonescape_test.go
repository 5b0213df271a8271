package vocab

import (
	"testing"
	"unicode/utf8"
)

func TestAJSONUnicodeEscapeReadsOneRuneOrASurrogatePair(t *testing.T) {
	for _, tc := range []struct {
		name string
		in   string
		r    rune
		n    int
	}{
		{"a plain escape", `\u00e9x`, 'é', 6},
		{"upper-case hex", `\u00E9`, 'é', 6},
		{"a surrogate pair", `\ud83d\ude00`, '😀', 12},
		{"a lone high surrogate", `\ud83dx`, utf8.RuneError, 6},
		{"a high surrogate before a letter", `\ud83d\u0041`, utf8.RuneError, 6},
		{"too short", `\u00e`, 0, 0},
		{"not hex", `\u00g9`, 0, 0},
		{"another escape", `\n`, 0, 0},
	} {
		r, n := JSONUnicodeEscape(tc.in)
		rb, nb := JSONUnicodeEscape([]byte(tc.in))
		if r != tc.r || n != tc.n || rb != r || nb != n {
			t.Errorf("%s: JSONUnicodeEscape(%q) = %q, %d (bytes: %q, %d), want %q, %d", tc.name, tc.in, r, n, rb, nb, tc.r, tc.n)
		}
	}
}

func TestAJSONEscapeIsOneOfTheEightSimpleOnes(t *testing.T) {
	want := map[byte]byte{'"': '"', '\\': '\\', '/': '/', 'b': '\b', 'f': '\f', 'n': '\n', 'r': '\r', 't': '\t'}
	for c := range 256 {
		e, ok := JSONEscape(byte(c))
		if w, simple := want[byte(c)]; ok != simple || e != w {
			t.Errorf("JSONEscape(%q) = %q, %v", byte(c), e, ok)
		}
	}
}
