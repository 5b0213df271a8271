package tools

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// A typical call: write_file with a path and a small file's content.
func BenchmarkValidateTypicalCall(b *testing.B) {
	tw := newTestWorkspace(b)
	raw, _ := json.Marshal(map[string]any{"path": "src/components/Button.tsx", "content": strings.Repeat("export const x = 1;\n", 40)})
	b.ReportAllocs()
	for b.Loop() {
		if _, err := tw.reg.Validate("write_file", raw); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkValidateEditCall(b *testing.B) {
	tw := newTestWorkspace(b)
	raw := json.RawMessage(`{"path":"main.go","old_string":"return nil","new_string":"return err","expected_replacements":2}`)
	b.ReportAllocs()
	for b.Loop() {
		if _, err := tw.reg.Validate("edit_file", raw); err != nil {
			b.Fatal(err)
		}
	}
}

func benchmarkWriteFile(b *testing.B, size int) {
	tw := newTestWorkspace(b)
	raw, _ := json.Marshal(map[string]any{"path": "out/file.txt", "content": strings.Repeat("x", size-1) + "\n"})
	b.SetBytes(int64(size))
	b.ReportAllocs()
	for b.Loop() {
		if res := tw.reg.Run(b.Context(), "write_file", "c", raw, nil); res.IsError {
			b.Fatal(res.Content)
		}
	}
}

func BenchmarkWriteFile1KiB(b *testing.B) { benchmarkWriteFile(b, 1<<10) }
func BenchmarkWriteFile1MiB(b *testing.B) { benchmarkWriteFile(b, 1<<20) }

// Each call looks up the app's files anew (the database can be backed up or
// replaced while a workspace is open). The worst case is a database in the
// workspace's own folder, whose every entry is then looked at; compared
// side by side with a workspace that has no database to protect.
func BenchmarkReadFileBesideTheDatabase(b *testing.B) {
	for _, withDatabase := range []bool{false, true} {
		name := map[bool]string{false: "no database", true: "database among 2000 files"}[withDatabase]
		b.Run(name, func(b *testing.B) {
			tw := newTestWorkspace(b)
			for i := range 2000 {
				tw.write(b, fmt.Sprintf("file%04d.txt", i), "x\n")
			}
			if withDatabase {
				tw.write(b, "prototyper.db", "bolt")
				tw.reopen(b, WorkspaceOptions{ProtectedFiles: []string{filepath.Join(tw.ws, "prototyper.db")}})
			}
			raw := json.RawMessage(`{"path":"file0001.txt"}`)
			b.ReportAllocs()
			for b.Loop() {
				if res := tw.reg.Run(b.Context(), "read_file", "c", raw, nil); res.IsError {
					b.Fatal(res.Content)
				}
			}
		})
	}
}

// Each call also looks up the configuration folders (their place and what they hold) and
// looks at every folder on the path; compared side by side with a workspace opened without
// them, for a file four folders deep.
func BenchmarkReadFileWithTheConfigurationFolders(b *testing.B) {
	for _, withConfig := range []bool{false, true} {
		name := map[bool]string{false: "no configuration folders", true: "the workspace's and the user's"}[withConfig]
		b.Run(name, func(b *testing.B) {
			tw := newTestWorkspace(b)
			tw.write(b, "src/app/ui/parts/button.tsx", "x\n")
			if withConfig {
				tw.write(b, ".prototyper/mcp.json", "{}\n")
				user := filepath.Join(tw.out, "config", "prototyper")
				for _, f := range []string{"mcp.json", "prototyper.db", "prototyper.db.lock"} {
					writeOutside(b, filepath.Join(user, f))
				}
				tw.reopen(b, WorkspaceOptions{ConfigDirs: []string{WorkspaceConfigDir, user}})
			}
			raw := json.RawMessage(`{"path":"src/app/ui/parts/button.tsx"}`)
			b.ReportAllocs()
			for b.Loop() {
				if res := tw.reg.Run(b.Context(), "read_file", "c", raw, nil); res.IsError {
					b.Fatal(res.Content)
				}
			}
		})
	}
}

func writeOutside(b *testing.B, p string) {
	b.Helper()
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		b.Fatal(err)
	}
	if err := os.WriteFile(p, []byte("x"), 0o600); err != nil {
		b.Fatal(err)
	}
}
