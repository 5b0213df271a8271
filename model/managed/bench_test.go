package managed

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"testing"

	"prototyper/internal/ollamatest"
)

// BenchmarkEnsureStartsAndStopsTheRealServer is what the window's first check of Ollama costs
// on a machine where none runs: `ollama serve` started until it answers, then stopped.
func BenchmarkEnsureStartsAndStopsTheRealServer(b *testing.B) {
	bin := ollamatest.Binary(b)
	home := b.TempDir()
	s := New(Options{LogDir: b.TempDir(), Locations: Locations{LookPath: func(string) (string, error) { return "", exec.ErrNotFound }},
		Env: append(os.Environ(), "HOME="+home, "OLLAMA_MODELS="+filepath.Join(home, "models"))})
	for b.Loop() {
		u := mustURL(b, ollamatest.FreeURL(b))
		if _, err := s.Ensure(context.Background(), u, bin); err != nil {
			b.Fatal(err)
		}
		s.Stop()
	}
}
