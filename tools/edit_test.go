package tools

import (
	"errors"
	"runtime"
	"runtime/debug"
	"strings"
	"testing"
)

// allocatedBy returns how many bytes fn allocated on the heap. Allocation is
// counted, not sampled or timed, so the figure does not depend on the
// machine; the test must not run in parallel with others.
func allocatedBy(t testing.TB, fn func()) uint64 {
	t.Helper()
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	fn()
	runtime.ReadMemStats(&after)
	return after.TotalAlloc - before.TotalAlloc
}

// An edit whose every match is short and whose replacement is long asks for
// a result of size × len(new_string): a 1 MiB file of one repeated byte,
// each replaced by 1 KiB, is a 1 GiB result. It must be refused from the
// count alone, before anything of that size is allocated.
func TestEditFileRefusesAnOversizedResultBeforeBuildingIt(t *testing.T) {
	// Under a soft memory limit the collector works hard, so what the edit
	// allocates is what the process really needs, and a regression shows as
	// a failure here rather than as a machine running out of memory.
	old := debug.SetMemoryLimit(256 << 20)
	t.Cleanup(func() { debug.SetMemoryLimit(old) })

	cases := []struct {
		name           string
		size           int    // bytes of the file, all "a"
		newString      string // replaces every "a"
		maxWrite       int64  // MaxWriteBytes; 0 is the default of 16 MiB
		wantErr        error
		wantMessage    string
		maxAllocations uint64
	}{
		// First the case that, built, could never fit: a regression fails
		// here at once ("out of memory") instead of using gigabytes.
		{"1 MiB of matches each replaced by 100 KiB", 1 << 20, strings.Repeat("x", 100<<10), 0, ErrTooLarge,
			"would be 100 GiB, over the limit of 16 MiB", 24 << 20},
		{"1 MiB of matches each replaced by 1 KiB", 1 << 20, strings.Repeat("x", 1<<10), 0, ErrTooLarge,
			`after the edit "big.txt" would be 1 GiB, over the limit of 16 MiB for a file; replace fewer occurrences or use a shorter new_string`, 24 << 20},
		{"just over a small limit", 1 << 10, "bb", 2<<10 - 1, ErrTooLarge,
			"would be 2048 bytes, over the limit of 2047 bytes", 1 << 20},
		{"within the limit it is done", 64 << 10, "bb", 0, nil, "", 8 << 20},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			tw := newTestWorkspaceWith(t, WorkspaceOptions{MaxWriteBytes: c.maxWrite})
			content := strings.Repeat("a", c.size)
			tw.write(t, "big.txt", content)
			args := map[string]any{"path": "big.txt", "old_string": "a", "new_string": c.newString, "expected_replacements": c.size}
			var err error
			allocated := allocatedBy(t, func() {
				_, err = tw.exec(t, t.Context(), "edit_file", args, nil)
			})
			switch {
			case c.wantErr == nil && err != nil:
				t.Fatalf("the edit failed: %v", err)
			case c.wantErr != nil && !errors.Is(err, c.wantErr):
				t.Fatalf("got %v, want %v", err, c.wantErr)
			case c.wantErr != nil && !strings.Contains(err.Error(), c.wantMessage):
				t.Fatalf("the refusal %q does not say %q", err, c.wantMessage)
			}
			if allocated > c.maxAllocations {
				t.Fatalf("the edit allocated %s, over the bound of %s", sizeText(int64(allocated)), sizeText(int64(c.maxAllocations)))
			}
			want := content
			if c.wantErr == nil {
				want = strings.Repeat(c.newString, c.size)
			}
			if tw.read(t, "big.txt") != want {
				t.Fatal("the file is not what it should be")
			}
		})
	}
}

func TestEditedSizeNeverOverflows(t *testing.T) {
	cases := []struct {
		name                    string
		size, n, oldLen, newLen int
		limit                   int64
		wantSize                int64
		wantWithin              bool
	}{
		{"shrinks", 100, 10, 5, 1, 100, 60, true},
		{"grows to the limit", 100, 10, 1, 2, 110, 110, true},
		{"grows past the limit", 100, 10, 1, 2, 109, 110, false},
		{"would overflow an int64", 1 << 30, 1 << 30, 1, 1 << 40, 16 << 20, 1<<63 - 1, false},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			size, ok := editedSize(c.size, c.n, c.oldLen, c.newLen, c.limit)
			if size != c.wantSize || ok != c.wantWithin {
				t.Fatalf("editedSize = %d, %v; want %d, %v", size, ok, c.wantSize, c.wantWithin)
			}
		})
	}
}
