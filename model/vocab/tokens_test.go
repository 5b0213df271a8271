package vocab

import "testing"

// The same cases are in frontend/src/tokenCount.test.ts: the window and the Go
// sentences write a count alike.
func TestATokenCountIsWrittenInKOf1024(t *testing.T) {
	for n, want := range map[int]string{
		0: "0", 950: "950", 1023: "1023", 1024: "1K", 6246: "6.1K", 8192: "8K", 10188: "9.9K", 10239: "10K",
		12345: "12K", 16384: "16K", 32768: "32K", 40960: "40K", 131072: "128K",
	} {
		if got := TokenCount(n); got != want {
			t.Errorf("TokenCount(%d) = %q, want %q", n, got, want)
		}
	}
}

// The same cases are in frontend/src/tokenCount.test.ts.
func TestTwoCountsThatWouldReadTheSameAreWrittenExactly(t *testing.T) {
	for _, c := range []struct {
		a, b         int
		wantA, wantB string
	}{
		{12288, 12083, "12,288", "12,083"},
		{6246, 6200, "6,246", "6,200"},
		{1100000, 1099999, "1,100,000", "1,099,999"},
		{12345, 16384, "12K", "16K"},
		{950, 900, "950", "900"},
		{16384, 16384, "16K", "16K"},
	} {
		if a, b := TokenCounts(c.a, c.b); a != c.wantA || b != c.wantB {
			t.Errorf("TokenCounts(%d, %d) = %q, %q, want %q, %q", c.a, c.b, a, b, c.wantA, c.wantB)
		}
	}
}

// The same cases are in frontend/src/tokenCount.test.ts: the window and the Go sentences write
// a speed alike.
func TestASpeedIsWrittenWholeWithThousandsSeparatedAndTenthsBelowTen(t *testing.T) {
	for _, c := range []struct {
		perSec float64
		want   string
	}{
		{0, "0"}, {4.24, "4.2"}, {5, "5"}, {9.94, "9.9"}, {9.96, "10"}, {14.4, "14"}, {850.3, "850"},
		{29207.4, "29,207"}, {1234567.8, "1,234,568"},
	} {
		if got := Rate(c.perSec); got != c.want {
			t.Errorf("Rate(%v) = %q, want %q", c.perSec, got, c.want)
		}
	}
	if got := TokenRate(29207); got != "29,207 tok/s" {
		t.Errorf("TokenRate(29207) = %q", got)
	}
}
