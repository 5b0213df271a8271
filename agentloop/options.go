package agentloop

import (
	"cmp"
	"prototyper/store"
)

// optionSources are where the options of a run come from. For each option the first source
// that sets it wins: the caller's (RunOnce's flags; the window gives none), then the paused
// run the run resumes (which keeps the model and limits it ran with), the chat (its model),
// the user's settings, and last the Config's defaults.
type optionSources struct {
	run      RunOptions
	resumed  *pausedRun // nil for a run that resumes nothing
	chat     store.Chat
	settings store.Settings
	config   Config
}

// resolvedOptions are what a run starts with.
type resolvedOptions struct {
	opts      RunOptions
	workspace string // the chat's folder, else the Config's
}

// resolveOptions resolves a run's options from their sources, reading nothing else. It
// fails with ErrNoModel when no source names a model.
func resolveOptions(src optionSources) (resolvedOptions, error) {
	opts := src.run
	if p := src.resumed; p != nil {
		// a resumed run keeps the model and settings of the run it continues
		opts.Model, opts.Think = cmp.Or(opts.Model, p.Model), cmp.Or(opts.Think, p.Think)
		opts.Approve = cmp.Or(opts.Approve, p.Approve)
		if opts.MaxSteps == 0 {
			opts.MaxSteps = p.MaxSteps
		}
		if opts.NumPredict == 0 {
			opts.NumPredict = p.NumPredict
		}
		opts.Summarize = cmp.Or(opts.Summarize, p.Summarize)
	}
	settings, cfg := src.settings, src.config
	opts.Model = cmp.Or(opts.Model, src.chat.Model, settings.DefaultModel, cfg.DefaultModel)
	if opts.Model == "" {
		return resolvedOptions{}, ErrNoModel
	}
	opts.Think = cmp.Or(opts.Think, settings.Think)
	opts.Approve = cmp.Or(opts.Approve, cfg.Approve)
	if opts.MaxSteps <= 0 {
		opts.MaxSteps = cfg.MaxSteps
	}
	if opts.NumPredict <= 0 {
		opts.NumPredict = cfg.NumPredict
	}
	if opts.Approver == nil {
		opts.Approver = cfg.Approver
	}
	opts.Summarize = cmp.Or(opts.Summarize, settings.OlderTurnsPolicy())
	if opts.FirstByteTimeout <= 0 {
		opts.FirstByteTimeout = settings.FirstByteTimeout()
	}
	if opts.FirstByteTimeout <= 0 {
		opts.FirstByteTimeout = cfg.FirstByteTimeout
	}
	if opts.MaxAnswerBytes <= 0 {
		opts.MaxAnswerBytes = settings.MaxAnswer()
	}
	return resolvedOptions{opts: opts, workspace: cmp.Or(src.chat.Workspace, cfg.Workspace)}, nil
}
