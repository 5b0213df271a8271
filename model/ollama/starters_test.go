package ollama

import (
	"strings"
	"testing"
)

func TestTheRecommendedStarterIsTheOneThisMachinesCheckOrMemoryFavours(t *testing.T) {
	pass := func(passed int, tokPerSec float64) StarterCheck {
		return StarterCheck{Passed: passed, Total: 6, AnswerTokensPerSec: tokPerSec}
	}
	for _, tc := range []struct {
		name    string
		memory  int64
		checks  map[string]StarterCheck
		want    string
		whyHas  string
		noWhyOK bool
	}{
		{name: "memory unknown, no check: the fixed recommendation, without a reason", want: "qwen3:4b", noWhyOK: true},
		{name: "a laptop of 8 GB", memory: 8 * gb, want: "qwen3:4b", whyHas: "8 GB"},
		{name: "a machine of 32 GB still starts with the fixed recommendation", memory: 32 * gb, want: "qwen3:4b", whyHas: "32 GB"},
		{name: "a machine of 6 GB", memory: 6 * gb, want: "qwen3:1.7b", whyHas: "6 GB"},
		{name: "a machine of 3 GB: the smallest, saying so", memory: 3 * gb, want: "qwen3:1.7b", whyHas: "smallest"},
		{name: "the check passed most: it wins over memory", memory: 8 * gb,
			checks: map[string]StarterCheck{"qwen3:8b": pass(6, 9), "qwen3:4b": pass(5, 14)}, want: "qwen3:8b", whyHas: "6 of 6"},
		{name: "as many passed: the faster", memory: 8 * gb,
			checks: map[string]StarterCheck{"qwen3:8b": pass(5, 9), "qwen3:4b": pass(5, 14)}, want: "qwen3:4b", whyHas: "14 tokens a second"},
		{name: "the fixed recommendation failed most of its check: the next that fits", memory: 8 * gb,
			checks: map[string]StarterCheck{"qwen3:4b": pass(2, 30)}, want: "qwen3:1.7b", whyHas: "8 GB"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got := RecommendStarters(tc.memory, tc.checks)
			if len(got) != len(starterModels) || got[0].Name != tc.want || !got[0].Recommended {
				t.Fatalf("first = %+v; want %s recommended, first of all %d", got[0], tc.want, len(starterModels))
			}
			for _, m := range got[1:] {
				if m.Recommended || m.Why != "" {
					t.Errorf("%s is recommended too (%q)", m.Name, m.Why)
				}
			}
			if tc.noWhyOK != (got[0].Why == "") || !strings.Contains(got[0].Why, tc.whyHas) {
				t.Errorf("why = %q; want it to hold %q", got[0].Why, tc.whyHas)
			}
		})
	}
	if fixed := StarterModels(); fixed[0].Name != "qwen3:4b" || !fixed[0].Recommended || fixed[0].Why != "" {
		t.Errorf("the fixed list changed: %+v", fixed[0])
	}
}

func TestMachineMemoryIsReadFromMeminfo(t *testing.T) {
	m := parseMeminfo([]byte("MemTotal:       24000000 kB\nMemFree:         1000 kB\nMemAvailable:   20000000 kB\n"))
	if m.Total != 24000000*1024 || m.Available != 20000000*1024 {
		t.Errorf("memory = %+v", m)
	}
	if live := MachineMemory(); live.Total <= 0 || live.Available <= 0 || live.Available > live.Total {
		t.Errorf("this machine's memory = %+v", live)
	}
}

func TestTheKVCacheOfATokenIsReadFromTheModelsGeometry(t *testing.T) {
	qwen := map[string]any{"qwen3.block_count": 36.0, "qwen3.attention.head_count": 32.0, "qwen3.attention.head_count_kv": 8.0,
		"qwen3.attention.key_length": 128.0, "qwen3.attention.value_length": 128.0, "qwen3.embedding_length": 2560.0}
	if got := kvBytesPerToken(qwen, "qwen3"); got != 36*8*256*2 {
		t.Errorf("qwen3:4b: %d bytes a token", got)
	}
	// no key length: the embedding over the heads; no kv heads: as many as heads
	llama := map[string]any{"llama.block_count": 2.0, "llama.attention.head_count": 4.0, "llama.embedding_length": 64.0}
	if got := kvBytesPerToken(llama, "llama"); got != 2*4*(16+16)*2 {
		t.Errorf("llama: %d bytes a token", got)
	}
	if got := kvBytesPerToken(map[string]any{}, "x"); got != 0 {
		t.Errorf("no geometry: %d", got)
	}
}
