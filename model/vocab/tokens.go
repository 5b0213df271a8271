package vocab

import (
	"math"
	"strconv"
)

// TokenCount is a count of tokens as every sentence and label writes it: 950, 6.1K, 16K,
// 128K. K is 1,024 tokens, as a model's context is sized, so that a context of 32768 reads
// 32K wherever it is said. The window writes the same (frontend/src/tokenCount.ts,
// tokenCount), a word " tokens" following where the sentence needs it.
func TokenCount(n int) string {
	if n < 1024 {
		return strconv.Itoa(n)
	}
	k := float64(n) / 1024
	if tenths := math.Round(k*10) / 10; tenths < 10 {
		return strconv.FormatFloat(tenths, 'f', -1, 64) + "K"
	}
	return strconv.Itoa(int(math.Round(k))) + "K"
}

// TokenCounts writes two counts one sentence compares as [TokenCount] does, unless they would
// read the same: then both exactly, with thousands separators ("12,288" and "12,083"), so that
// no sentence refuses a message of 12K for a room of 12K. The window writes the same
// (frontend/src/tokenCount.ts, tokenCounts).
func TokenCounts(a, b int) (string, string) {
	ka, kb := TokenCount(a), TokenCount(b)
	if ka != kb || a == b {
		return ka, kb
	}
	return exactCount(a), exactCount(b)
}

// exactCount is n with a comma between each group of three digits.
func exactCount(n int) string {
	if n < 0 {
		return "-" + exactCount(-n)
	}
	s := strconv.Itoa(n)
	for i := len(s) - 3; i > 0; i -= 3 {
		s = s[:i] + "," + s[i:]
	}
	return s
}

// Rate is a speed in tokens per second as every sentence, label and table writes it: whole
// tokens with a comma between each group of three digits ("29,207", "850"), and one decimal
// below 10, where it still tells models apart ("4.2"). The window writes the same
// (frontend/src/tokenCount.ts, rate).
func Rate(perSec float64) string {
	if perSec < 0 || math.IsNaN(perSec) || math.IsInf(perSec, 0) {
		perSec = 0
	}
	if tenths := math.Round(perSec*10) / 10; tenths < 10 {
		return strconv.FormatFloat(tenths, 'f', -1, 64)
	}
	return exactCount(int(math.Round(perSec)))
}

// TokenRate is [Rate] with its unit: "29,207 tok/s".
func TokenRate(perSec float64) string { return Rate(perSec) + " tok/s" }
