package sandbox

import (
	"context"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"testing"
)

// The start cost of a confined command against a bare exec of the same program.
func BenchmarkStart(b *testing.B) {
	b.Run("bare-exec", func(b *testing.B) {
		for b.Loop() {
			if err := exec.Command("/bin/sh", "-c", "true").Run(); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("sandbox", func(b *testing.B) {
		needSandbox(b)
		ws := b.TempDir()
		for b.Loop() {
			res, err := Run(context.Background(), "true", Options{Workspace: ws}, nil)
			if err != nil || res.ExitCode != 0 {
				b.Fatal(err, res)
			}
			res.Changes.Close()
		}
	})
}

// A change set of 10,000 new small files in 100 folders (an npm install), computed from an
// upper layer and applied, against a plain copy of the same files into an empty folder.
func BenchmarkTenThousandNewFiles(b *testing.B) {
	const script = `for d in $(seq 100); do mkdir -p pkg/$d; for f in $(seq 100); do echo "module.exports = $f" > pkg/$d/$f.js; done; done`
	src := b.TempDir() // an upper layer as a command leaves it
	if out, err := exec.Command("sh", "-c", "cd "+src+" && "+script).CombinedOutput(); err != nil {
		b.Fatal(err, string(out))
	}
	b.Run("plain-copy", func(b *testing.B) {
		for i := 0; b.Loop(); i++ {
			copyTree(b, src, filepath.Join(b.TempDir(), strconv.Itoa(i)))
		}
	})
	b.Run("collect-and-apply", func(b *testing.B) {
		for i := 0; b.Loop(); i++ {
			ws, stage := filepath.Join(b.TempDir(), "ws"), filepath.Join(b.TempDir(), "stage")
			os.Mkdir(ws, 0o755)
			cs, err := collect(context.Background(), src, ws, stage)
			if err != nil || len(cs.Changes) != 10101 {
				b.Fatal(err)
			}
			if err := cs.Apply(ws); err != nil {
				b.Fatal(err)
			}
			cs.Close()
		}
	})
}

func copyTree(tb testing.TB, src, dst string) {
	err := filepath.Walk(src, func(p string, fi os.FileInfo, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(src, p)
		target := filepath.Join(dst, rel)
		if fi.IsDir() {
			return os.MkdirAll(target, fi.Mode().Perm())
		}
		in, err := os.Open(p)
		if err != nil {
			return err
		}
		defer in.Close()
		out, err := os.OpenFile(target, os.O_WRONLY|os.O_CREATE|os.O_EXCL, fi.Mode().Perm())
		if err != nil {
			return err
		}
		if _, err := io.Copy(out, in); err != nil {
			out.Close()
			return err
		}
		return out.Close()
	})
	if err != nil {
		tb.Fatal(err)
	}
}
