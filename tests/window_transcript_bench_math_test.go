package tests

import (
	"math"
	"testing"
)

// A long stream's slope is read through the web view's sawtooth: teeth on a flat line must
// read as flat, and on a climbing line as its climb, wherever the samples start and end.
func TestTheilSenReadsTheLineUnderASawtooth(t *testing.T) {
	for _, c := range []struct {
		name  string
		climb float64 // MB an answer
	}{{"flat", 0}, {"climbing", 0.1}} {
		t.Run(c.name, func(t *testing.T) {
			var y []float64
			for n := range 90 {
				tooth := float64(n%7) * 6 // grows 36 MB, then a collection takes it back
				y = append(y, 220+c.climb*float64(n)+tooth)
			}
			if got := theilSen(y); math.Abs(got-c.climb) > 0.02 {
				t.Errorf("slope %.3f MB an answer, want %.3f", got, c.climb)
			}
		})
	}
}
