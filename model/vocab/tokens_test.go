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
