package tools

import (
	"context"
	"encoding/json"
	"strings"
	"testing"
)

// A typical call: write_file with a path and a small file's content.
func BenchmarkValidateTypicalCall(b *testing.B) {
	tw := newTestWorkspace(b, WorkspaceOptions{})
	raw, _ := json.Marshal(map[string]any{"path": "src/components/Button.tsx", "content": strings.Repeat("export const x = 1;\n", 40)})
	b.ReportAllocs()
	for b.Loop() {
		if _, err := tw.reg.Validate("write_file", raw); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkValidateEditCall(b *testing.B) {
	tw := newTestWorkspace(b, WorkspaceOptions{})
	raw := json.RawMessage(`{"path":"main.go","old_string":"return nil","new_string":"return err","expected_replacements":2}`)
	b.ReportAllocs()
	for b.Loop() {
		if _, err := tw.reg.Validate("edit_file", raw); err != nil {
			b.Fatal(err)
		}
	}
}

func benchmarkWriteFile(b *testing.B, size int) {
	tw := newTestWorkspace(b, WorkspaceOptions{})
	raw, _ := json.Marshal(map[string]any{"path": "out/file.txt", "content": strings.Repeat("x", size-1) + "\n"})
	b.SetBytes(int64(size))
	b.ReportAllocs()
	for b.Loop() {
		if res := tw.reg.Run(context.Background(), "write_file", "c", raw, nil); res.IsError {
			b.Fatal(res.Content)
		}
	}
}

func BenchmarkWriteFile1KiB(b *testing.B) { benchmarkWriteFile(b, 1<<10) }
func BenchmarkWriteFile1MiB(b *testing.B) { benchmarkWriteFile(b, 1<<20) }
