package desktop

import (
	"context"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"prototyper/events"
	"prototyper/internal/cli"
	"prototyper/preview"
)

func TestThePreviewServesTheFolderOfNewChatsButNeverTheAppsDatabase(t *testing.T) {
	ws := t.TempDir()
	os.WriteFile(filepath.Join(ws, "index.html"), []byte("<html><head></head><body>hi</body></html>"), 0o644)
	os.MkdirAll(filepath.Join(ws, "games"), 0o755)
	os.WriteFile(filepath.Join(ws, "games", "snake.html"), []byte("<p>snake</p>"), 0o644)
	db := filepath.Join(ws, "prototyper.db") // the app's database inside the folder
	d, closeDesk, seen := openWatchedDesktop(t, cli.DesktopOptions{Common: cli.Common{Ollama: "127.0.0.1:1", DB: db}, Workspace: ws})
	page, err := d.PreviewOpen(noGuard, "", "games/snake.html")
	if err != nil {
		t.Fatal(err)
	}
	if page.Page != "games/snake.html" || len(page.Pages) != 2 || page.Pages[0] != "index.html" || !strings.HasPrefix(page.URL, page.Origin+"/") {
		t.Fatalf("page %+v", page)
	}
	if again, _ := d.PreviewOpen(noGuard, "", "nothing.html"); again.Page != "index.html" || again.URL != page.URL {
		t.Fatalf("a page that is not there falls back to index.html on the same site: %+v", again)
	}
	body := func(rel string) (int, string) {
		resp, err := http.Get(page.URL + rel)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		b, _ := io.ReadAll(resp.Body)
		return resp.StatusCode, string(b)
	}
	if code, b := body("index.html"); code != 200 || !strings.Contains(b, "hi") {
		t.Fatalf("index.html = %d %q", code, b)
	}
	if code, _ := body("prototyper.db"); code != 404 {
		t.Fatalf("the database was served: %d", code)
	}
	tools, _ := extraTools{&previewTools{room: d.preview}}.ToolsFor(context.Background(), ws)
	if len(tools) != 1 || tools[0].Definition().Name != preview.ErrorsToolName {
		t.Fatalf("the agent's extra tools: %v", tools)
	}
	// the report goes out on a timer of its own (at most one every notifyEvery)
	for deadline := time.Now().Add(10 * time.Second); !hasEvent(seen(), events.PreviewReport); time.Sleep(10 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatalf("no preview.report event within 10 s of a page served: %v", seen())
		}
	}
	closeDesk()
	if _, err := d.preview.Server(); err == nil {
		t.Fatal("the preview server starts again after the app closed")
	}
}

func hasEvent(evs []events.Event, typ events.Type) bool {
	for _, e := range evs {
		if e.Type == typ && e.ChatID == "" {
			return true
		}
	}
	return false
}

// noGuard is a page guard that has nothing to guard: no window.
func noGuard() error { return nil }
