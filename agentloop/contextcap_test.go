package agentloop

import (
	"context"
	"testing"

	"prototyper/model"
	"prototyper/store"
)

// memoryFitModel is a model whose server says that this machine's memory holds no more than
// fits tokens of context.
type memoryFitModel struct {
	fakeModel
	fits int
}

func (m *memoryFitModel) ContextLength(context.Context, string) (int, error) { return 131072, nil }

func (m *memoryFitModel) FitContext(_ context.Context, _ string, want int) (int, string) {
	if want <= m.fits {
		return want, ""
	}
	return m.fits, "the most this machine holds"
}

// TestTheFreeMemoryChoosesTheContextOnlyWhenNoCapIsSet: with no cap set, the context is what
// the memory holds; a cap the user set is used as set, also one equal to the default.
func TestTheFreeMemoryChoosesTheContextOnlyWhenNoCapIsSet(t *testing.T) {
	for _, c := range []struct {
		name       string
		cap, numCx int
	}{
		{"no cap", 0, 4096},
		{"a cap below the default", 8192, 8192},
		{"a cap equal to the default", store.DefaultContextCap, store.DefaultContextCap},
	} {
		t.Run(c.name, func(t *testing.T) {
			m := &memoryFitModel{fits: 4096, fakeModel: fakeModel{turn: func(model.Request) model.Turn { return answer("ok") }}}
			a, db, _ := fakeHarness(t, m, nil)
			if err := db.PutSettings(store.Settings{ContextCap: c.cap}); err != nil {
				t.Fatal(err)
			}
			b, err := a.Budget(context.Background(), "", "fake")
			if err != nil {
				t.Fatal(err)
			}
			if b.NumCtx != c.numCx {
				t.Errorf("cap %d: context %d (%q); want %d", c.cap, b.NumCtx, b.NumCtxWhy, c.numCx)
			}
		})
	}
}
