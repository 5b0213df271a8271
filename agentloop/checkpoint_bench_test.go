package agentloop

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"prototyper/store"
	"prototyper/tools"
)

// BenchmarkWriteFileCall is one write_file call as the loop makes it: the pending record
// committed, the tool run, the result committed; checkpointed, also the paths' states read
// before and after, the pre-image committed with the pending record. The file is rewritten
// with new content each time, so every pre-image is a content not kept yet.
func BenchmarkWriteFileCall(b *testing.B) {
	for _, size := range []int{1 << 10, 1 << 20} {
		for _, checkpointed := range []bool{false, true} {
			name := fmt.Sprintf("%dKiB/plain", size>>10)
			if checkpointed {
				name = fmt.Sprintf("%dKiB/checkpointed", size>>10)
			}
			b.Run(name, func(b *testing.B) { benchmarkWriteFileCall(b, size, checkpointed) })
		}
	}
}

func benchmarkWriteFileCall(b *testing.B, size int, checkpointed bool) {
	ub := newUndoBench(b, nil)
	chat, err := ub.db.CreateChat(store.Chat{Workspace: ub.dir})
	if err != nil {
		b.Fatal(err)
	}
	tb, closeTools, err := WorkspaceTools(tools.WorkspaceOptions{})(ub.dir)
	if err != nil {
		b.Fatal(err)
	}
	defer closeTools()
	r := &run{a: ub.a, cs: &chatState{id: chat.ID}, id: "run1", ctx: context.Background(), tools: tb,
		keep: store.DefaultCheckpointMaxBytes}
	body := strings.Repeat("x", size-16)
	b.SetBytes(int64(size))
	b.ResetTimer()
	for i := range b.N {
		id := fmt.Sprintf("c%d", i)
		r.id = fmt.Sprintf("run%d", i) // a new run each time: every pre-image is kept
		args := fmt.Sprintf(`{"path":"f.txt","content":"%s%016d"}`, body, i)
		valid, err := tb.Validate("write_file", []byte(args))
		if err != nil {
			b.Fatal(err)
		}
		c := plannedCall{ID: id, Name: "write_file", valid: valid}
		rec := store.ToolCallRecord{ID: id, ChatID: chat.ID, RunID: r.id, Name: "write_file", Pending: true}
		var cc callChange
		if checkpointed {
			cc = r.beforeCall(r.ctx, c)
			if err := r.startCall(rec, cc); err != nil {
				b.Fatal(err)
			}
		} else if err := ub.db.PutToolCall(rec); err != nil {
			b.Fatal(err)
		}
		res := tb.Exec(r.ctx, tools.Call{ID: id, Name: "write_file", Args: valid}, func(any) {})
		if res.IsError {
			b.Fatal(res.Content)
		}
		var after []tools.PathState
		if checkpointed {
			after = r.afterCall(cc)
		}
		if _, err := ub.a.completeRecord(chat.ID, id, ToolOutcome{OK: true, Output: res.Content}, after); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkUndoOfA100FileRun undoes a run that wrote 100 files of 4 KiB over existing ones.
func BenchmarkUndoOfA100FileRun(b *testing.B) {
	for range b.N {
		b.StopTimer()
		ub := newUndoBench(b, nil)
		var calls []store.ToolCall
		for i := range 100 {
			p := fmt.Sprintf("pkg%d/file%d.txt", i%10, i)
			ub.write(p, strings.Repeat("o", 4096), 0o644)
			calls = append(calls, writeCall(fmt.Sprintf("c%d", i), p, strings.Repeat("n", 4096)))
		}
		ub.run(calls...)
		b.StartTimer()
		if res := ub.undo(UndoOptions{}); len(res.Paths) != 100 {
			b.Fatalf("undid %d paths", len(res.Paths))
		}
	}
}
