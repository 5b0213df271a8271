package managed

import (
	"bufio"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"testing"

	"prototyper/internal/ollamatest"
)

func TestAKilledAppLeavesNoServerBehind(t *testing.T) {
	addr := strings.TrimPrefix(ollamatest.FreeURL(t), "http://")
	app := exec.Command(os.Args[0])
	app.Env = append(os.Environ(), killedAppEnv+"="+addr, "MANAGED_LOG_DIR="+t.TempDir())
	out, err := app.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	app.Stderr = os.Stderr
	if err := app.Start(); err != nil {
		t.Fatal(err)
	}
	line, err := bufio.NewReader(out).ReadString('\n')
	pid, convErr := strconv.Atoi(strings.TrimSpace(line))
	if err != nil || convErr != nil {
		_ = app.Process.Kill()
		t.Fatalf("the app did not start its server: %q, %v", line, err)
	}
	if !ollamatest.Answers("http://" + addr) {
		t.Fatal("the app's server does not answer")
	}
	_ = app.Process.Kill() // SIGKILL: the app runs no cleanup
	_ = app.Wait()
	waitGone(t, pid)
}
