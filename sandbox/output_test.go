package sandbox

import (
	"bytes"
	"context"
	"runtime"
	"strings"
	"testing"
)

func TestOutputKeepsTheHeadAndTheTailAndCountsTheMiddle(t *testing.T) {
	for _, tc := range []struct {
		name   string
		writes []string
		text   string
	}{
		{"short", []string{"abc"}, "abc"},
		{"exactly full", []string{"abcd", "wxyz"}, "abcdwxyz"},
		{"one big write", []string{"abcdMIDDLEwxyz"}, "abcd\n[… 6 bytes of output omitted …]\nwxyz"},
		{"many small writes", []string{"ab", "cdM", "I", "DDLE", "w", "xy", "z"}, "abcd\n[… 6 bytes of output omitted …]\nwxyz"},
		{"a write longer than the tail", []string{"abcd", "0123456789", "wxyz"}, "abcd\n[… 10 bytes of output omitted …]\nwxyz"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			b := newBoundedOutput(4, 4)
			for _, w := range tc.writes {
				b.write([]byte(w))
			}
			if got := b.result().Text(); got != tc.text {
				t.Fatalf("Text() = %q, want %q", got, tc.text)
			}
		})
	}
}

func TestOutputCutsFallBetweenCharacters(t *testing.T) {
	b := newBoundedOutput(5, 5)
	b.write([]byte(strings.Repeat("é", 20))) // two bytes each
	text := b.result().Text()
	if !strings.HasPrefix(text, "éé\n") || !strings.HasSuffix(text, "\néé") {
		t.Fatalf("Text() = %q, want whole characters on both sides of the cut", text)
	}
}

// A command printing 100 MB costs the app the bounded copy and a read buffer, not the output.
// Everything goes to stdout: the order of two pipes' chunks is not the order they were written.
func TestAHundredMegabytesOfOutputCostBoundedMemory(t *testing.T) {
	needSandbox(t)
	const printed = 100 << 20
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	var delivered int64
	res, err := Run(context.Background(), "head -c 104857600 /dev/zero | tr '\\0' x; echo END", Options{Workspace: t.TempDir()}, func(c Chunk) error {
		delivered += int64(len(c.Data))
		return nil
	})
	runtime.ReadMemStats(&after)
	if err != nil {
		t.Fatal(err)
	}
	if delivered != printed+4 {
		t.Fatalf("the callback saw %d bytes, want %d", delivered, printed+4)
	}
	if res.Output.Total != printed+4 {
		t.Fatalf("counted %d bytes, want %d", res.Output.Total, printed+4)
	}
	if !bytes.HasSuffix(res.Output.Tail, []byte("xxEND\n")) || len(res.Output.Head) != 16<<10 {
		t.Fatalf("head %d bytes, tail ends %q", len(res.Output.Head), res.Output.Tail[max(0, len(res.Output.Tail)-8):])
	}
	// Everything allocated during the run, a bound on its peak: the output itself was 100 MB.
	if alloc := after.TotalAlloc - before.TotalAlloc; alloc > 8<<20 {
		t.Fatalf("the run allocated %d bytes for %d bytes of output", alloc, printed)
	}
	t.Logf("allocated %d KiB for %d MiB of output", (after.TotalAlloc-before.TotalAlloc)>>10, printed>>20)
}
