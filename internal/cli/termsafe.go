package cli

import (
	"strings"
	"unicode/utf8"
)

// Sanitize returns s fit to print on a terminal: text from a model, a tool or a server can
// hold escape sequences that retitle the window, clear the screen, move the cursor over what
// was printed, or write to the clipboard. It removes
//
//   - escape sequences whole: CSI (ESC [ … final), OSC, DCS, SOS, PM and APC strings (up to
//     BEL, ST or the end of the line), and the two-byte ones (ESC 7, ESC c, …);
//   - their 8-bit C1 forms (U+0080–U+009F, with the strings CSI and OSC introduce);
//   - every other control character but newline and tab (CR and backspace, which can hide
//     what was printed, included), and DEL;
//   - the bidirectional embeddings, overrides and isolates (U+202A–U+202E, U+2066–U+2069),
//     which can make text read in another order than it is.
//
// Invalid UTF-8 becomes U+FFFD. Everything else is kept as it is, and text with nothing to
// remove comes back unchanged without being copied. Sanitize is stateless: a sequence split
// between two calls loses its ESC in the first, and what reaches the second is plain text.
func Sanitize(s string) string {
	if termSafe(s) {
		return s
	}
	var b strings.Builder
	b.Grow(len(s))
	for i := 0; i < len(s); {
		r, size := utf8.DecodeRuneInString(s[i:])
		switch {
		case r == utf8.RuneError && size == 1:
			b.WriteRune(utf8.RuneError)
			i++
		case r == 0x1b:
			i = skipEscape(s, i+1)
		case r == 0x9b: // CSI
			i = skipCSI(s, i+size)
		case r == 0x90 || r == 0x98 || r == 0x9d || r == 0x9e || r == 0x9f: // DCS, SOS, OSC, PM, APC
			i = skipString(s, i+size)
		case terminalControl(r):
			i += size
		default:
			b.WriteString(s[i : i+size])
			i += size
		}
	}
	return b.String()
}

// termSafe reports whether s holds nothing Sanitize removes: the common case, checked fast.
func termSafe(s string) bool {
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c >= 0x80 {
			return !strings.ContainsFunc(s[i:], func(r rune) bool { return r == utf8.RuneError || terminalControl(r) })
		}
		if c < 0x20 && c != '\n' && c != '\t' || c == 0x7f {
			return false
		}
	}
	return true
}

// terminalControl reports whether a terminal acts on r rather than showing it: a control
// character other than newline and tab, DEL, a C1 control, or a bidirectional control.
func terminalControl(r rune) bool {
	return r < 0x20 && r != '\n' && r != '\t' || r >= 0x7f && r < 0xa0 || bidiControl(r)
}

func bidiControl(r rune) bool {
	return r >= 0x202a && r <= 0x202e || r >= 0x2066 && r <= 0x2069
}

// skipEscape returns the index after the escape sequence whose ESC ends before i.
func skipEscape(s string, i int) int {
	if i >= len(s) {
		return i
	}
	switch c := s[i]; {
	case c == '[':
		return skipCSI(s, i+1)
	case c == ']' || c == 'P' || c == 'X' || c == '^' || c == '_':
		return skipString(s, i+1)
	case c >= 0x20 && c <= 0x2f: // intermediates, then a final byte
		for i < len(s) && s[i] >= 0x20 && s[i] <= 0x2f {
			i++
		}
		if i < len(s) && s[i] >= 0x30 && s[i] <= 0x7e {
			i++
		}
		return i
	case c >= 0x30 && c <= 0x7e:
		return i + 1
	}
	return i // a lone ESC: only it goes
}

// skipCSI returns the index after a control sequence's parameters, intermediates and final
// byte, which start at i. A byte that cannot be part of it ends it there.
func skipCSI(s string, i int) int {
	for i < len(s) && s[i] >= 0x30 && s[i] <= 0x3f {
		i++
	}
	for i < len(s) && s[i] >= 0x20 && s[i] <= 0x2f {
		i++
	}
	if i < len(s) && s[i] >= 0x40 && s[i] <= 0x7e {
		i++
	}
	return i
}

// skipString returns the index after a control string (OSC, DCS, …) that starts at i: up to
// and with BEL or ST (ESC \ or U+009C), or up to a newline, which is kept.
func skipString(s string, i int) int {
	for i < len(s) {
		switch {
		case s[i] == 0x07:
			return i + 1
		case s[i] == 0x1b && i+1 < len(s) && s[i+1] == '\\':
			return i + 2
		case s[i] == 0x1b:
			return i // another sequence starts
		case strings.HasPrefix(s[i:], "\u009c"):
			return i + len("\u009c")
		case s[i] == '\n':
			return i
		}
		i++
	}
	return i
}

// cell is Sanitize for one cell of a table or one line of a block drawn in place: tabs and
// newlines become spaces, so that the columns and the line count hold.
func cell(s string) string {
	s = Sanitize(s)
	if !strings.ContainsAny(s, "\t\n") {
		return s
	}
	return strings.Map(func(r rune) rune {
		if r == '\t' || r == '\n' {
			return ' '
		}
		return r
	}, s)
}
