package agentloop

import (
	"cmp"
	"context"
	"errors"
	"fmt"

	"prototyper/model"
	"prototyper/model/vocab"
	"prototyper/store"
	"prototyper/tools"
)

// Budget is how much of a model's context one message may take. The window asks for it
// once per chat and model and compares its estimate of the composer's text (made with the
// parameters the Budget carries) with MaxTokens while the user types or pastes;
// [Agent.Send] refuses a message over it.
type Budget struct {
	// Model is the model the budget is of.
	Model string `json:"model"`
	// NumCtx is the context the model is given: its trained length capped by the
	// settings' context cap, and without a cap set, by what this machine's free memory holds.
	NumCtx int `json:"numCtx"`
	// NumCtxWhy says why NumCtx is less than asked when the machine's memory chose it
	// ("16K tokens: the most …"); "" otherwise.
	NumCtxWhy string `json:"numCtxWhy,omitempty"`
	// MaxTokens is what one message may take of NumCtx: the rest holds the system prompt,
	// the tools' definitions and the room kept for the answer. Older turns of a chat are
	// left out as needed, so they take nothing from it.
	MaxTokens int `json:"maxTokens"`
	// CharsPerToken and PerMessageTokens are [EstimateTokens]'s parameters, so that a client
	// estimates a text's tokens as Go does without sending it on every keystroke:
	// tokens = floor(UTF-8 bytes / CharsPerToken) + PerMessageTokens.
	CharsPerToken    float64 `json:"charsPerToken"`
	PerMessageTokens int     `json:"perMessageTokens"`
}

// Check returns a [*PromptTooLongError] when text is over the budget, else nil.
func (b Budget) Check(text string) error {
	if n := EstimateTokens(text); n > b.MaxTokens {
		return &PromptTooLongError{Tokens: n, NumCtx: b.NumCtx, MaxTokens: b.MaxTokens}
	}
	return nil
}

// EstimateTokens guesses the tokens text takes in a prompt, the way the loop does before it
// has the server's count: about 3.5 characters (bytes) a token, which errs on the side of
// too many, plus the template's markers of one message.
func EstimateTokens(text string) int {
	return newEstimator().tokens(len(text), 1)
}

// ErrPromptTooLong is matched by a [*PromptTooLongError]: a message larger than the model's
// context can hold; nothing of it was stored or sent.
var ErrPromptTooLong = errors.New("message too long for the model's context")

// PromptTooLongError says how far over the model's context a message is.
type PromptTooLongError struct {
	Tokens    int // the message's estimated tokens
	NumCtx    int // the model's context, as the run would ask for it
	MaxTokens int // what one message may take of it
}

func (e *PromptTooLongError) Error() string {
	if e.Tokens > e.NumCtx {
		tokens, numCtx := vocab.TokenCounts(e.Tokens, e.NumCtx)
		return fmt.Sprintf("This message is about %s tokens; the model's context holds %s. Shorten it or attach less.",
			tokens, numCtx)
	}
	tokens, left := vocab.TokenCounts(e.Tokens, e.MaxTokens)
	return fmt.Sprintf("This message is about %s tokens; the model's context holds %s, of which about %s are left for a message once the instructions and the room for the answer are kept. Shorten it or attach less.",
		tokens, vocab.TokenCount(e.NumCtx), left)
}

// Is matches ErrPromptTooLong.
func (e *PromptTooLongError) Is(target error) bool { return target == ErrPromptTooLong }

// Budget returns the budget of one message to a chat: model, else the chat's, the
// settings' or the Config's default model; chatID "" is a new chat in the Config's
// workspace. It asks the model's context length (once per model) and opens the chat's
// workspace for its tools' definitions.
func (a *Agent) Budget(ctx context.Context, chatID, model string) (Budget, error) {
	return a.BudgetIn(ctx, chatID, a.cfg.Workspace, model)
}

// BudgetIn is [Agent.Budget] where a new chat (chatID "") would work in workspace: its tools'
// definitions take room in the context too.
func (a *Agent) BudgetIn(ctx context.Context, chatID, workspace, model string) (Budget, error) {
	chat := store.Chat{Workspace: cmp.Or(workspace, a.cfg.Workspace)}
	if chatID != "" {
		c, err := a.cfg.Store.Chat(chatID)
		if err != nil {
			return Budget{}, err
		}
		chat = c
	}
	ad, err := a.assess(ctx, chat, RunOptions{Model: model}, false)
	if err != nil {
		return Budget{}, err
	}
	_ = ad.close()
	return ad.budget, nil
}

// assessment is what is known of a message's run before anything is stored.
type assessment struct {
	model      string
	budget     Budget
	workspace  string
	contextCap int
	instr      instructions
	residency  *residencyAnswer
	tools      Toolbox // open until close is called (admit reads the files a message names)
	close      func() error
}

// assess checks what a run of chat needs before it starts: a model, a workspace whose
// tools open, and a model the server has. It never stores anything. With ask, it also asks
// the server whether the model is loaded, for the run's first request, while it checks.
func (a *Agent) assess(ctx context.Context, chat store.Chat, opts RunOptions, ask bool) (assessment, error) {
	settings, err := a.cfg.Store.Settings()
	if err != nil {
		return assessment{}, err
	}
	modelName := cmp.Or(opts.Model, chat.Model, settings.DefaultModel, a.cfg.DefaultModel)
	if modelName == "" {
		return assessment{}, ErrNoModel
	}
	workspace := cmp.Or(chat.Workspace, a.cfg.Workspace)
	tb, closeTools, err := a.cfg.Tools(workspace)
	if err != nil {
		return assessment{}, err
	}
	defs := tb.Definitions()
	keep := false
	defer func() {
		if !keep {
			_ = closeTools()
		}
	}()
	length, err := a.cfg.Model.ContextLength(ctx, modelName)
	if model.Fatal(err) {
		return assessment{}, err
	}
	var residency *residencyAnswer
	if ask { // once the server is known to answer and to have the model
		residency = a.askResidency(a.base, modelName) // the run's, which does not exist yet
	}
	if ts, ok := a.cfg.Model.(model.ToolSupport); ok && len(defs) > 0 {
		if can, known := ts.SupportsTools(ctx, modelName); known && !can {
			return assessment{}, &NoToolsError{Model: modelName}
		}
	}
	numPredict := opts.NumPredict
	if numPredict <= 0 {
		numPredict = a.cfg.NumPredict
	}
	numCtx, numCtxWhy := a.contextSize(ctx, modelName, length, settings.ContextCap)
	est := newEstimator()
	// the project's instructions are part of the system prompt of every request: counted here
	instr := a.readInstructions(ctx, workspace, settings)
	system := instr.systemPrompt(a.cfg.SystemPrompt)
	// in the form the run will send, but with every MCP server's tools: the most they can take
	compact := compactForm(numCtx)
	system = formSystem(system, a.cfg.SystemPrompt, compact)
	offered := defs
	if compact {
		offered = tools.CompactDefinitions(defs)
	}
	toolsChars := toolChars(offered)
	fixed := est.tokens(toolsChars+messageChars(store.Message{Role: store.RoleSystem, Content: system}), 1)
	maxTokens := promptBudget(numCtx, numPredict) - fixed
	if maxTokens < 0 {
		maxTokens = 0
	}
	keep = true
	return assessment{model: modelName, budget: Budget{Model: modelName, NumCtx: numCtx, NumCtxWhy: numCtxWhy, MaxTokens: maxTokens,
		CharsPerToken: 1 / est.tokensPerChar, PerMessageTokens: perMessageTokens}, workspace: workspace,
		contextCap: settings.ContextCap, instr: instr, residency: residency, tools: tb, close: closeTools}, nil
}

// admitted is a user's message as it will be committed.
type admitted struct {
	prompt string
	files  []store.FileAttachment // the files it names with @path, read now
	// admission is what its run reuses; the caller releases it once the run started or was
	// refused
	admission *admission
}

// admit checks a user's message before anything of it is stored: the chat's run can start
// (see assess), its images can be seen, the UserPromptSubmit hooks let it through (they may
// rewrite it), the files it names with @path can be read, and it fits the model's context
// with them. chat.ID is "" for a chat not created yet; the hooks then see ChatID "".
func (a *Agent) admit(ctx context.Context, chat store.Chat, opts RunOptions, prompt string) (admitted, error) {
	ad, err := a.assess(ctx, chat, opts, true)
	if err != nil {
		return admitted{}, err
	}
	kept := false
	defer func() {
		if !kept {
			_ = ad.close()
		}
	}()
	if err := a.checkImages(ctx, ad.model, opts.Images); err != nil {
		return admitted{}, err
	}
	d := a.cfg.Hooks.prompt(ctx, Prompt{ChatID: chat.ID, Text: prompt})
	switch d.Action {
	case Block:
		return admitted{}, &PromptBlockedError{Reason: d.Reason}
	case Rewrite:
		prompt = d.Text
	}
	files, err := readMentions(ctx, ad.tools, prompt)
	if err != nil {
		return admitted{}, err
	}
	if err := ad.budget.Check(withFiles(store.Message{Content: prompt, Files: files}).Content); err != nil {
		return admitted{}, err
	}
	kept = true
	return admitted{prompt: prompt, files: files, admission: &admission{workspace: ad.workspace, model: ad.model,
		contextCap: ad.contextCap, numCtx: ad.budget.NumCtx, instr: ad.instr, residency: ad.residency,
		tools: ad.tools, closeTB: ad.close}}, nil
}
