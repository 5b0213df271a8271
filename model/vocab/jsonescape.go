package vocab

import (
	"unicode/utf16"
	"unicode/utf8"
)

// JSONEscape is the byte that the JSON escape of c (the letter after a backslash) stands
// for: '"', '\\' and '/' themselves, 'b', 'f', 'n', 'r' and 't' their control characters. It
// is false for 'u', which starts a [JSONUnicodeEscape], and for a letter that starts no escape.
func JSONEscape(c byte) (byte, bool) {
	switch c {
	case '"', '\\', '/':
		return c, true
	case 'b':
		return '\b', true
	case 'f':
		return '\f', true
	case 'n':
		return '\n', true
	case 'r':
		return '\r', true
	case 't':
		return '\t', true
	}
	return 0, false
}

// JSONUnicodeEscape reads the \uXXXX escape that s begins with, or the surrogate pair of two
// such escapes: the rune and the bytes it took, 0 bytes when s begins with none. A lone
// surrogate reads as U+FFFD, as encoding/json reads it.
func JSONUnicodeEscape[T string | []byte](s T) (rune, int) {
	r, ok := hex4(s)
	if !ok {
		return 0, 0
	}
	if utf16.IsSurrogate(r) {
		if r2, ok := hex4(s[6:]); ok {
			if pair := utf16.DecodeRune(r, r2); pair != utf8.RuneError {
				return pair, 12
			}
		}
		return utf8.RuneError, 6
	}
	return r, 6
}

// hex4 decodes the \uXXXX that s begins with.
func hex4[T string | []byte](s T) (rune, bool) {
	if len(s) < 6 || s[0] != '\\' || s[1] != 'u' {
		return 0, false
	}
	var r rune
	for i := 2; i < 6; i++ {
		c := s[i]
		switch {
		case '0' <= c && c <= '9':
			c -= '0'
		case 'a' <= c && c <= 'f':
			c = c - 'a' + 10
		case 'A' <= c && c <= 'F':
			c = c - 'A' + 10
		default:
			return 0, false
		}
		r = r*16 + rune(c)
	}
	return r, true
}
