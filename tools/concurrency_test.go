package tools

import (
	"encoding/json"
	"fmt"
	"strings"
	"sync"
	"testing"
)

// Many calls of every tool run at once on one workspace, as parallel tool
// calls and overlapping runs do; run with -race.
func TestToolsRunConcurrentlyOnOneWorkspace(t *testing.T) {
	tw := newTestWorkspace(t)
	tw.write(t, "shared/readme.md", "shared\n")
	var wg sync.WaitGroup
	for g := range 6 {
		wg.Go(func() {
			for i := range 15 {
				p := fmt.Sprintf("w%d/f%d.txt", g, i)
				calls := []struct {
					tool string
					args map[string]any
				}{
					{"write_file", map[string]any{"path": p, "content": "v1 " + p + "\n"}},
					{"edit_file", map[string]any{"path": p, "old_string": "v1", "new_string": "v2"}},
					{"read_file", map[string]any{"path": p}},
					{"read_file", map[string]any{"path": "shared/readme.md"}},
					{"list_dir", map[string]any{"recursive": true}},
					{"search_files", map[string]any{"pattern": "v2 w"}},
					{"make_dir", map[string]any{"path": fmt.Sprintf("w%d/sub", g)}},
					{"write_file", map[string]any{"path": "shared/last.txt", "content": p}},
				}
				for _, c := range calls {
					raw, _ := json.Marshal(c.args)
					res := tw.reg.Run(t.Context(), c.tool, "c", raw, nil)
					if res.IsError {
						t.Errorf("%s %v: %s", c.tool, c.args, res.Content)
					}
				}
			}
		})
	}
	wg.Wait()
	for g := range 6 {
		for i := range 15 {
			p := fmt.Sprintf("w%d/f%d.txt", g, i)
			if got := tw.read(t, p); got != "v2 "+p+"\n" {
				t.Fatalf("%s = %q", p, got)
			}
		}
	}
	if last := tw.read(t, "shared/last.txt"); !strings.HasPrefix(last, "w") {
		t.Fatalf("last writer's content is torn: %q", last)
	}
	if leftovers := tempFiles(t, tw.ws); len(leftovers) > 0 {
		t.Fatalf("temporary files left: %v", leftovers)
	}
}
