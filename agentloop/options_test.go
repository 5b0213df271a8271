package agentloop

import (
	"context"
	"errors"
	"reflect"
	"testing"
	"time"

	"prototyper/store"
)

// namedApprover is an Approver told apart by its name.
type namedApprover struct{ name string }

func (namedApprover) Approve(context.Context, ApprovalRequest) (string, string, error) {
	return DecisionAllow, "", nil
}

func TestARunsOptionsComeFromTheFirstSourceThatSetsThem(t *testing.T) {
	config := Config{DefaultModel: "config-model", Workspace: "/config", MaxSteps: 25, NumPredict: 512,
		Approve: ApproveAuto, Approver: namedApprover{"config"}, FirstByteTimeout: time.Minute}
	settings := store.Settings{DefaultModel: "settings-model", Think: "on", OlderTurns: store.SummarizeNever,
		FirstByteTimeoutSec: 30, MaxAnswerBytes: 1 << 20}
	chat := store.Chat{Model: "chat-model", Workspace: "/chat"}
	ownRun := RunOptions{Model: "run-model", Think: "high", MaxSteps: 3, Approve: ApproveDeny, NumPredict: 64,
		Approver: namedApprover{"run"}, FirstByteTimeout: time.Second, MaxAnswerBytes: 1 << 16,
		Summarize: store.SummarizeAlways}
	paused := &pausedRun{Model: "paused-model", Think: "low", Approve: ApproveAsk, MaxSteps: 7, NumPredict: 128,
		Summarize: store.SummarizeAlways}

	for _, tc := range []struct {
		name string
		src  optionSources
		want resolvedOptions
		err  error
	}{
		{
			name: "the run's own options win over every other source",
			src:  optionSources{run: ownRun, resumed: paused, chat: chat, settings: settings, config: config},
			want: resolvedOptions{opts: ownRun, workspace: "/chat"},
		},
		{
			name: "a resumed run keeps the model and limits of the run it continues",
			src:  optionSources{resumed: paused, chat: chat, settings: settings, config: config},
			want: resolvedOptions{workspace: "/chat", opts: RunOptions{Model: "paused-model", Think: "low",
				Approve: ApproveAsk, MaxSteps: 7, NumPredict: 128, Summarize: store.SummarizeAlways,
				Approver: namedApprover{"config"}, FirstByteTimeout: 30 * time.Second, MaxAnswerBytes: 1 << 20}},
		},
		{
			name: "the chat's model, then the settings', then the Config's defaults",
			src:  optionSources{chat: chat, settings: settings, config: config},
			want: resolvedOptions{workspace: "/chat", opts: RunOptions{Model: "chat-model", Think: "on",
				Approve: ApproveAuto, MaxSteps: 25, NumPredict: 512, Summarize: store.SummarizeNever,
				Approver: namedApprover{"config"}, FirstByteTimeout: 30 * time.Second, MaxAnswerBytes: 1 << 20}},
		},
		{
			name: "a chat without a model runs the settings' default model",
			src:  optionSources{settings: settings, config: config},
			want: resolvedOptions{workspace: "/config", opts: RunOptions{Model: "settings-model", Think: "on",
				Approve: ApproveAuto, MaxSteps: 25, NumPredict: 512, Summarize: store.SummarizeNever,
				Approver: namedApprover{"config"}, FirstByteTimeout: 30 * time.Second, MaxAnswerBytes: 1 << 20}},
		},
		{
			name: "without settings the Config's defaults and the settings' own defaults apply",
			src:  optionSources{config: config},
			want: resolvedOptions{workspace: "/config", opts: RunOptions{Model: "config-model",
				Approve: ApproveAuto, MaxSteps: 25, NumPredict: 512, Summarize: store.SummarizeAsk,
				Approver: namedApprover{"config"}, FirstByteTimeout: time.Minute,
				MaxAnswerBytes: store.DefaultMaxAnswerBytes}},
		},
		{
			name: "no source names a model",
			src:  optionSources{chat: store.Chat{Workspace: "/chat"}, settings: store.Settings{Think: "on"}},
			err:  ErrNoModel,
		},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, err := resolveOptions(tc.src)
			if !errors.Is(err, tc.err) {
				t.Fatalf("error %v, want %v", err, tc.err)
			}
			if !reflect.DeepEqual(got, tc.want) {
				t.Fatalf("resolved\n%+v\nwant\n%+v", got, tc.want)
			}
		})
	}
}
