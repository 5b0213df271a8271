package tools

import (
	"bytes"
	"encoding/json"
	"slices"
	"testing"
)

// TestEveryWorkspaceToolHasACompactFormWithTheSameSchemaMeaning: each workspace tool has a
// shorter compact definition, with its name, and a schema that differs only by the
// parameters' descriptions left out.
func TestEveryWorkspaceToolHasACompactFormWithTheSameSchemaMeaning(t *testing.T) {
	full := WorkspaceDefinitions()
	compact := CompactDefinitions(full)
	for i, d := range full {
		c := compact[i]
		if _, ok := compactTools[d.Name]; !ok {
			t.Errorf("%s has no compact form", d.Name)
			continue
		}
		if c.Name != d.Name || c.Mode != d.Mode || c.DefaultApproval != d.DefaultApproval {
			t.Errorf("%s: compact %+v differs beyond description and schema", d.Name, c)
		}
		if len(c.Description) >= len(d.Description) || len(c.Schema) >= len(d.Schema) {
			t.Errorf("%s: compact form is not shorter: %q %s", d.Name, c.Description, c.Schema)
		}
		if !bytes.Equal(withoutDescriptions(t, d.Schema), withoutDescriptions(t, c.Schema)) {
			t.Errorf("%s: schemas mean different things:\n%s\n%s", d.Name, d.Schema, c.Schema)
		}
		for p := range compactTools[d.Name].params {
			var s struct{ Properties map[string]any }
			_ = json.Unmarshal(d.Schema, &s)
			if _, ok := s.Properties[p]; !ok {
				t.Errorf("%s: compact form describes %q, which is no parameter", d.Name, p)
			}
		}
	}
	if !slices.EqualFunc(CompactDefinitions(full), compact, func(a, b Definition) bool { return bytes.Equal(a.Schema, b.Schema) }) {
		t.Error("the compact form is not the same bytes each time")
	}
}

// TestCompactDefinitionsLeaveOtherToolsAsTheyAre: a tool that is no workspace tool (an MCP
// server's) keeps its own definition.
func TestCompactDefinitionsLeaveOtherToolsAsTheyAre(t *testing.T) {
	d := Definition{Name: "mcp__x__echo", Description: "Echo a text back, at length.",
		Schema: json.RawMessage(`{"type":"object","properties":{"text":{"type":"string","description":"what"}}}`)}
	if got := CompactDefinitions([]Definition{d})[0]; got.Description != d.Description || !bytes.Equal(got.Schema, d.Schema) {
		t.Errorf("got %+v", got)
	}
}

// withoutDescriptions is a schema decoded with every "description" taken out, encoded again.
func withoutDescriptions(t *testing.T, raw json.RawMessage) []byte {
	t.Helper()
	var v any
	if err := json.Unmarshal(raw, &v); err != nil {
		t.Fatal(err)
	}
	var strip func(any)
	strip = func(v any) {
		if m, ok := v.(map[string]any); ok {
			delete(m, "description")
			for _, x := range m {
				strip(x)
			}
		}
	}
	strip(v)
	b, _ := json.Marshal(v)
	return b
}
