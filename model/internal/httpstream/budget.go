package httpstream

import (
	"math"
	"unicode/utf8"
)

// Budget is how many bytes of an answer (its text, its thinking and its tool calls) a client
// still keeps: the one bound on what a stream may make it hold, whatever the server sends.
// The zero Budget has no bound.
type Budget struct{ limit, used int }

// NewBudget returns a budget of limit bytes (0 or less: no bound).
func NewBudget(limit int) Budget { return Budget{limit: limit} }

// Limit is the budget's size in bytes (0: no bound).
func (b *Budget) Limit() int { return b.limit }

// Left is how many bytes are still kept.
func (b *Budget) Left() int {
	if b.limit <= 0 {
		return math.MaxInt
	}
	return b.limit - b.used
}

// Fit takes text from the budget: all of it (whole is true), or as much as fits, cut
// before a character that does not fit whole; then the budget is spent.
func (b *Budget) Fit(text string) (kept string, whole bool) {
	left := b.Left()
	if len(text) <= left {
		b.used += len(text)
		return text, true
	}
	n := left
	for n > 0 && !utf8.RuneStart(text[n]) { // the first byte left out begins a character
		n--
	}
	b.used = b.limit
	return text[:n], false
}

// Take takes n bytes of something that cannot be cut (a tool call's parts) from the budget;
// false, with the budget spent, when they do not fit.
func (b *Budget) Take(n int) bool {
	if n <= b.Left() {
		b.used += n
		return true
	}
	b.used = b.limit
	return false
}
