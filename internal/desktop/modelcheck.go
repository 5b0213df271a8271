package desktop

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"prototyper/events"
	"prototyper/internal/cli"
	"prototyper/model/ollama"
	"prototyper/modelcheck"
)

// ErrCheckRunning is returned by [Desktop.CheckModel] for a model whose check is under way.
var ErrCheckRunning = errors.New("this model is being checked already")

// CheckModel runs the model check (package modelcheck) on name from the window and keeps its
// result, as `prototyper check` does, returning what was kept. Its progress goes to the window
// through the bridge: check.progress events of no chat, one when a case starts (status
// running, name the case) and one when it ends (status case, ok its result). A check stopped
// with [Desktop.StopModelCheck] or by the window closing returns context.Canceled and keeps
// nothing.
func (d *Desktop) CheckModel(ctx context.Context, name string) (ModelCheck, error) {
	name = strings.TrimSpace(name)
	if name == "" {
		return ModelCheck{}, modelcheck.ErrNoModel
	}
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	stopWithApp := context.AfterFunc(d.life, cancel)
	defer stopWithApp()
	d.mu.Lock()
	if d.checks == nil {
		d.checks = map[string]context.CancelFunc{}
	}
	if _, running := d.checks[name]; running {
		d.mu.Unlock()
		return ModelCheck{}, fmt.Errorf("%s: %w", name, ErrCheckRunning)
	}
	d.checks[name] = cancel
	d.mu.Unlock()
	defer func() {
		d.mu.Lock()
		delete(d.checks, name)
		d.mu.Unlock()
	}()

	cases := modelcheck.Cases()
	progress := func(status, caseName string, ok *bool, ended int) {
		d.bridge.Emit(events.Event{Type: events.CheckProgress, Model: name, Status: status, Name: caseName,
			OK: ok, Completed: int64(ended), Total: int64(len(cases))})
	}
	progress(events.CheckRunning, cases[0].Name, nil, 0)
	ended := 0
	rep, err := modelcheck.Run(ctx, d.server, modelcheck.Options{Model: name, Cases: cases,
		Residency: cli.OllamaResidency(d.server),
		Progress: func(c modelcheck.CaseResult) {
			ended++
			passed := c.Passed
			progress(events.CheckCaseEnded, c.Name, &passed, ended)
			if ended < len(cases) {
				progress(events.CheckRunning, cases[ended].Name, nil, ended)
			}
		}})
	if err != nil {
		return ModelCheck{}, err
	}
	rec := rep.Record()
	if err := d.db.PutModelCheck(rec); err != nil {
		return ModelCheck{}, err
	}
	return rec, nil
}

// StopModelCheck stops the check of name that [Desktop.CheckModel] runs; nothing when none runs.
func (d *Desktop) StopModelCheck(name string) error {
	d.mu.Lock()
	defer d.mu.Unlock()
	if cancel := d.checks[strings.TrimSpace(name)]; cancel != nil {
		cancel()
	}
	return nil
}

// ModelChecks returns the latest check of every model checked on this machine, in the order
// of their names.
func (d *Desktop) ModelChecks() ([]ModelCheck, error) {
	names, err := d.db.CheckedModels()
	if err != nil {
		return nil, err
	}
	out := make([]ModelCheck, 0, len(names))
	for _, name := range names {
		checks, err := d.db.ModelChecks(name)
		if err != nil {
			return nil, err
		}
		if len(checks) > 0 {
			out = append(out, checks[0])
		}
	}
	return out, nil
}

// StarterModels returns the models offered when the server has none, one recommended for this
// machine (ollama.RecommendStarters): by the model check where a starter was checked here,
// else by the machine's memory. It answers on a nil session too (the window asks before one
// is open), by the memory alone.
func (d *Desktop) StarterModels() []StarterModel {
	checks := map[string]ollama.StarterCheck{}
	var kept []ModelCheck
	if d != nil {
		kept, _ = d.ModelChecks() // unread checks leave the memory to recommend
	}
	for _, c := range kept {
		for _, s := range ollama.StarterModels() {
			if ollama.SameModel(c.Model, s.Name) {
				checks[s.Name] = ollama.StarterCheck{Passed: c.Passed, Total: c.Total, AnswerTokensPerSec: c.AnswerTokensPerSec}
			}
		}
	}
	return ollama.RecommendStarters(ollama.MachineMemory().Total, checks)
}
