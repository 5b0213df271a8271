package ollama

import (
	"errors"
	"strings"
	"unicode/utf16"
	"unicode/utf8"
)

var errNotString = errors.New("expected a JSON string")

// appendJSONString appends the value of a JSON string literal (quotes included, as
// encoding/json hands it to a json.RawMessage) to b, decoding it exactly as encoding/json
// would: escapes resolved, invalid UTF-8 and lone surrogates replaced by U+FFFD. null
// appends nothing. Text without escapes or non-ASCII bytes is copied in one go.
func appendJSONString(b *strings.Builder, raw []byte) error {
	if string(raw) == "null" {
		return nil
	}
	if len(raw) < 2 || raw[0] != '"' || raw[len(raw)-1] != '"' {
		return errNotString
	}
	s := raw[1 : len(raw)-1]
	i := 0
	for i < len(s) && s[i] != '\\' && s[i] != '"' && s[i] >= ' ' && s[i] < utf8.RuneSelf {
		i++
	}
	b.Write(s[:i])
	for i < len(s) {
		c := s[i]
		switch {
		case c == '\\':
			if i+1 >= len(s) {
				return errNotString
			}
			switch s[i+1] {
			case '"', '\\', '/':
				b.WriteByte(s[i+1])
			case 'b':
				b.WriteByte('\b')
			case 'f':
				b.WriteByte('\f')
			case 'n':
				b.WriteByte('\n')
			case 'r':
				b.WriteByte('\r')
			case 't':
				b.WriteByte('\t')
			case 'u':
				r := getu4(s[i:])
				if r < 0 {
					return errNotString
				}
				i += 6
				if utf16.IsSurrogate(r) {
					r2 := getu4(s[i:])
					if dec := utf16.DecodeRune(r, r2); dec != utf8.RuneError {
						i += 6
						b.WriteRune(dec)
						continue
					}
					r = utf8.RuneError
				}
				b.WriteRune(r)
				continue
			default:
				return errNotString
			}
			i += 2
		case c == '"' || c < ' ':
			return errNotString
		case c < utf8.RuneSelf:
			b.WriteByte(c)
			i++
		default:
			r, size := utf8.DecodeRune(s[i:])
			if r == utf8.RuneError && size == 1 {
				b.WriteRune(utf8.RuneError)
			} else {
				b.Write(s[i : i+size])
			}
			i += size
		}
	}
	return nil
}

// getu4 decodes \uXXXX at the start of s, or returns -1.
func getu4(s []byte) rune {
	if len(s) < 6 || s[0] != '\\' || s[1] != 'u' {
		return -1
	}
	var r rune
	for _, c := range s[2:6] {
		switch {
		case '0' <= c && c <= '9':
			c = c - '0'
		case 'a' <= c && c <= 'f':
			c = c - 'a' + 10
		case 'A' <= c && c <= 'F':
			c = c - 'A' + 10
		default:
			return -1
		}
		r = r*16 + rune(c)
	}
	return r
}
