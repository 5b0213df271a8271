package ollamatest_test

import (
	"context"
	"errors"
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
