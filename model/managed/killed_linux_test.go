package managed

import (
	"bufio"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"testing"
	"time"

	"prototyper/internal/ollamatest"
	"prototyper/internal/testenv"
	"prototyper/internal/tether"
)

// TestAKilledAppLeavesNoServerBehind kills an app with SIGKILL once the server it started
// answers and has started a runner, and waits for every process below the app to end.
func TestAKilledAppLeavesNoServerBehind(t *testing.T) {
	addr := strings.TrimPrefix(ollamatest.FreeURL(t), "http://")
	app := exec.Command(os.Args[0])
	app.Env = append(os.Environ(), killedAppEnv+"="+addr, "MANAGED_LOG_DIR="+t.TempDir())
	out := testenv.StartApp(t, app)
	line, err := bufio.NewReader(out).ReadString('\n')
	pid, convErr := strconv.Atoi(strings.TrimSpace(line))
	if err != nil || convErr != nil {
		_ = app.Process.Kill()
		t.Fatalf("the app did not start its server: %q, %v", line, err)
	}
	if !ollamatest.Answers("http://" + addr) {
		t.Fatal("the app's server does not answer")
	}
	var tree []int
	for deadline := time.Now().Add(10 * time.Second); len(tree) < 2; time.Sleep(20 * time.Millisecond) {
		if tree = tether.Descendants(app.Process.Pid); time.Now().After(deadline) {
			t.Fatalf("the app's tree is %v; want the server and its runner", tree)
		}
	}
	_ = app.Process.Kill() // SIGKILL: the app runs no cleanup
	_ = app.Wait()
	killed := time.Now()
	for _, p := range append(tree, pid) {
		waitGone(t, p)
	}
	t.Logf("the server and the %d processes below the app were gone %s after its SIGKILL", len(tree), time.Since(killed).Round(time.Millisecond))
}
