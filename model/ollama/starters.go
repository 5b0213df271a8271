package ollama

import (
	"fmt"
	"slices"
)

// StarterModel is a model offered to a user whose server has none yet: small enough for a
// laptop, and able to call tools, which the agent needs to write files.
type StarterModel struct {
	Name string `json:"name"`
	// Size is about how much it downloads, in bytes.
	Size          int64  `json:"size"`
	ParameterSize string `json:"parameterSize"`
	// GoodAt says in a few words what it is good at, and what it needs.
	GoodAt string `json:"goodAt"`
	// Recommended marks the one model suggested first (see [RecommendedModel], [RecommendStarters]).
	Recommended bool `json:"recommended,omitempty"`
	// MinMemory is the memory a machine should have for the model to answer at a usable speed
	// with the context the agent needs, in bytes.
	MinMemory int64 `json:"minMemory"`
	// Why says why the model is recommended on this machine ([RecommendStarters]); "" for the
	// others and in the fixed list.
	Why string `json:"why,omitempty"`
}

// starterModels is the one list of starter models: the window offers it, and the command line
// names the recommended one.
var starterModels = []StarterModel{
	{Name: "qwen3:4b", Size: 2_500_000_000, ParameterSize: "4B", Recommended: true, MinMemory: 8 * gb,
		GoodAt: "The best start: thinks before it acts and calls tools reliably; runs on 8 GB of memory."},
	{Name: "qwen3:1.7b", Size: 1_400_000_000, ParameterSize: "1.7B", MinMemory: 4 * gb,
		GoodAt: "Quick on any laptop; thinks and calls tools, for small files and quick edits."},
	{Name: "llama3.2:3b", Size: 2_000_000_000, ParameterSize: "3B", MinMemory: 6 * gb,
		GoodAt: "Quick, answers without thinking; calls tools for simple pages and scripts."},
	{Name: "qwen3:8b", Size: 5_200_000_000, ParameterSize: "8B", MinMemory: 16 * gb,
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

const gb = 1 << 30

// StarterCheck is how a starter model did on this machine's model check.
type StarterCheck struct {
	Passed, Total      int
	AnswerTokensPerSec float64
}

// passesMost reports whether the model passed more than half of the check.
func (c StarterCheck) passesMost() bool { return c.Total > 0 && c.Passed*2 > c.Total }

// RecommendStarters returns the starter models with one recommended for this machine, listed
// first, saying why. A starter checked here that passed most cases is recommended before any
// other: the one that passed the most, then the fastest. Otherwise it is the first of the
// fixed order (the fixed recommendation first) whose [StarterModel.MinMemory] the machine's
// memory (memory bytes; 0 when unknown) reaches, leaving out one that failed most of its
// check; when none does, the smallest. The fixed list is unchanged by it.
func RecommendStarters(memory int64, checks map[string]StarterCheck) []StarterModel {
	list := StarterModels()
	for i := range list {
		list[i].Recommended = false
	}
	best := -1
	for i, m := range list {
		c, ok := checks[m.Name]
		if !ok || !c.passesMost() {
			continue
		}
		if b := checks[list[max(best, 0)].Name]; best < 0 || c.Passed > b.Passed || c.Passed == b.Passed && c.AnswerTokensPerSec > b.AnswerTokensPerSec {
			best = i
		}
	}
	if best >= 0 {
		c := checks[list[best].Name]
		list[best].Why = fmt.Sprintf("It passed %d of %d tasks of the model check on this machine, at %.0f tokens a second.", c.Passed, c.Total, c.AnswerTokensPerSec)
	} else {
		for i, m := range list {
			if c, ok := checks[m.Name]; ok && !c.passesMost() || memory > 0 && memory < m.MinMemory {
				continue
			}
			best = i
			if memory > 0 {
				list[i].Why = fmt.Sprintf("It fits this machine's %s of memory.", memoryText(memory))
			}
			break
		}
		if best < 0 {
			best = smallest(list)
			if memory > 0 {
				list[best].Why = fmt.Sprintf("The smallest: this machine has %s of memory, less than the others need.", memoryText(memory))
			}
		}
	}
	list[best].Recommended = true
	return append(append([]StarterModel{list[best]}, list[:best]...), list[best+1:]...)
}

// smallest is the index of the starter with the smallest download.
func smallest(list []StarterModel) int {
	at := 0
	for i, m := range list {
		if m.Size < list[at].Size {
			at = i
		}
	}
	return at
}

// memoryText is bytes in whole gigabytes as a person reads them ("16 GB").
func memoryText(bytes int64) string {
	return fmt.Sprintf("%.0f GB", float64(bytes)/gb)
}
