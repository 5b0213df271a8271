package ollamatest_test

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strconv"
	"testing"
	"time"

	"prototyper/internal/ollamatest"
)

func TestStartFailsAtOnceWhenTheServerExits(t *testing.T) {
	begin := time.Now()
	_, err := ollamatest.Start(context.Background(), "/bin/false")
	if !errors.Is(err, ollamatest.ErrServerExited) {
		t.Fatalf("Start with a server that exits: %v, want ErrServerExited", err)
	}
	if d := time.Since(begin); d > 10*time.Second {
		t.Errorf("Start took %s to notice the exit", d)
	}
}

func TestStartRemovesDirectoriesOfDeadTestBinaries(t *testing.T) {
	tmp := t.TempDir()
	t.Setenv("TMPDIR", tmp)
	orphan := filepath.Join(tmp, "ollamatest-orphan")
	live := filepath.Join(tmp, "ollamatest-live")
	foreign := filepath.Join(tmp, "ollamatest-foreign")
	for dir, owner := range map[string]string{orphan: "2147483646", live: strconv.Itoa(os.Getpid()), foreign: ""} {
		if err := os.MkdirAll(dir, 0o755); err != nil {
			t.Fatal(err)
		}
		if owner != "" {
			if err := os.WriteFile(filepath.Join(dir, "owner.pid"), []byte(owner), 0o644); err != nil {
				t.Fatal(err)
			}
		}
	}
	ollamatest.Start(context.Background(), "/bin/false")
	for dir, want := range map[string]bool{orphan: false, live: true, foreign: true} {
		if _, err := os.Stat(dir); (err == nil) != want {
			t.Errorf("%s exists: %v, want %v", filepath.Base(dir), err == nil, want)
		}
	}
}

func TestStartRefusesModelsWithoutOwnNames(t *testing.T) {
	for name, models := range map[string][]ollamatest.Model{
		"no name":       {{Scripts: ollamatest.Scripts{"U": {"a"}}}},
		"the same name": {{Name: "a"}, {Name: "a:latest"}},
	} {
		t.Run(name, func(t *testing.T) {
			if _, err := ollamatest.Start(context.Background(), "/bin/false", models...); !errors.Is(err, ollamatest.ErrBadModel) {
				t.Errorf("Start: %v, want ErrBadModel", err)
			}
		})
	}
}
