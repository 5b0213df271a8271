package vocab

import "testing"

func TestAJSONUnicodeEscapeReadsOneRuneOrASurrogatePair(t *testing.T) {
	type read struct {
		r rune
		n int
	}
	for in, want := range map[string]read{
		`\u00e9x`:      {'é', 6},
		`\u00E9`:       {'é', 6},
		`\ud83d\ude00`: {'😀', 12},
		`\ud83dx`:      {'\uFFFD', 6}, // a lone surrogate
		`\ud83d\u0041`: {'\uFFFD', 6}, // a high surrogate before a letter
		`\u00e`:        {0, 0},
		`\u00g9`:       {0, 0},
		`\n`:           {0, 0},
		`x\u00e9`:      {0, 0},
		`\ud83d\ude0`:  {'\uFFFD', 6}, // the pair cut short
	} {
		r, n := JSONUnicodeEscape(in)
		rb, nb := JSONUnicodeEscape([]byte(in))
		if (read{r, n}) != want || rb != r || nb != n {
			t.Errorf("JSONUnicodeEscape(%q) = %q, %d (of bytes: %q, %d), want %q, %d", in, r, n, rb, nb, want.r, want.n)
		}
	}
}

func TestAJSONEscapeIsOneOfTheEightSimpleOnes(t *testing.T) {
	simple := map[byte]byte{'"': '"', '\\': '\\', '/': '/', 'b': '\b', 'f': '\f', 'n': '\n', 'r': '\r', 't': '\t'}
	for c := range 256 {
		e, ok := JSONEscape(byte(c))
		if want, isSimple := simple[byte(c)]; ok != isSimple || e != want {
			t.Errorf("JSONEscape(%q) = %q, %v", byte(c), e, ok)
		}
	}
}
