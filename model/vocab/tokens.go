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
