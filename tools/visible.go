package tools

import (
	"fmt"
	"strings"
	"unicode"
)

// Visible is text from the model as a user is asked to judge it (a command line, a path in a
// question): each character that draws nothing or changes how what follows reads (a format
// character such as a bidirectional override or a zero-width space, a control character
// other than tab and newline, a line or paragraph separator) becomes a mark naming it,
// <U+202E>, so that what is read is what runs. It is the rule of the window's visibleChars.
func Visible(s string) string {
	if !strings.ContainsFunc(s, hiddenChar) {
		return s
	}
	var b strings.Builder
	for _, r := range s {
		if hiddenChar(r) {
			fmt.Fprintf(&b, "<U+%04X>", r)
		} else {
			b.WriteRune(r)
		}
	}
	return b.String()
}

func hiddenChar(r rune) bool {
	return unicode.Is(unicode.Cf, r) || (unicode.IsControl(r) && r != '\t' && r != '\n') || r == 0x2028 || r == 0x2029
}
