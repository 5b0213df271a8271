package ollama

import "slices"

// StarterModel is a model offered to a user whose server has none yet: small enough for a
// laptop, and able to call tools, which the agent needs to write files.
type StarterModel struct {
	Name string `json:"name"`
	// Size is about how much it downloads, in bytes.
	Size          int64  `json:"size"`
	ParameterSize string `json:"parameterSize"`
	// GoodAt says in a few words what it is good at, and what it needs.
	GoodAt string `json:"goodAt"`
	// Recommended marks the one model suggested first (see [RecommendedModel]).
	Recommended bool `json:"recommended,omitempty"`
}

// starterModels is the one list of starter models: the window offers it, and the command line
// names the recommended one.
var starterModels = []StarterModel{
	{Name: "qwen3:4b", Size: 2_500_000_000, ParameterSize: "4B", Recommended: true,
		GoodAt: "The best start: thinks before it acts and calls tools reliably; runs on 8 GB of memory."},
	{Name: "qwen3:1.7b", Size: 1_400_000_000, ParameterSize: "1.7B",
		GoodAt: "Quick on any laptop; thinks and calls tools, for small files and quick edits."},
	{Name: "llama3.2:3b", Size: 2_000_000_000, ParameterSize: "3B",
		GoodAt: "Quick, answers without thinking; calls tools for simple pages and scripts."},
	{Name: "qwen3:8b", Size: 5_200_000_000, ParameterSize: "8B",
		GoodAt: "Better plans and code for larger projects; needs 16 GB of memory or a GPU."},
}

// StarterModels returns the starter models, the recommended one first.
func StarterModels() []StarterModel { return slices.Clone(starterModels) }

// RecommendedModel is the starter model suggested first.
func RecommendedModel() StarterModel {
	for _, m := range starterModels {
		if m.Recommended {
			return m
		}
	}
	return starterModels[0]
}
