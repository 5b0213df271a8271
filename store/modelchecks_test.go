package store

import (
	"testing"
	"time"
)

func TestAModelCheckIsKeptPerModelQuantizationAndContextTheLatestReplacingTheEarlier(t *testing.T) {
	db, path := openTestDB(t, nil)
	if got, err := db.ModelChecks("qwen3:4b"); err != nil || len(got) != 0 {
		t.Fatalf("a file without checks: %v, %v", got, err)
	}
	at := time.Date(2026, 11, 26, 12, 0, 0, 0, time.UTC)
	for _, c := range []ModelCheck{
		{Model: "qwen3:4b", Quantization: "Q4_K_M", NumCtx: 8192, Passed: 3, Total: 6, At: at},
		{Model: "qwen3:4b", Quantization: "Q4_K_M", NumCtx: 8192, Passed: 5, Total: 6, AnswerTokensPerSec: 14, At: at.Add(time.Hour)},
		{Model: "qwen3:4b", Quantization: "Q4_K_M", NumCtx: 16384, Passed: 4, Total: 6, At: at.Add(time.Minute)},
		{Model: "qwen3:4b-q8", Quantization: "Q8_0", NumCtx: 8192, Passed: 6, Total: 6, At: at},
	} {
		if err := db.PutModelCheck(c); err != nil {
			t.Fatal(err)
		}
	}
	db.Close()

	ro := reopen(t, path, Options{ReadOnly: true})
	got, err := ro.ModelChecks("qwen3:4b")
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != 2 || got[0].Passed != 5 || got[0].NumCtx != 8192 || got[1].NumCtx != 16384 {
		t.Errorf("checks of qwen3:4b, newest first = %+v; want the 8192 one replaced by 5/6, then the 16384 one", got)
	}
	names, err := ro.CheckedModels()
	if err != nil || len(names) != 2 || names[0] != "qwen3:4b" || names[1] != "qwen3:4b-q8" {
		t.Errorf("checked models = %v, %v", names, err)
	}
}
