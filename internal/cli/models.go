package cli

import "context"

func modelsCommand(ctx context.Context, args []string, io IO) int {
	_ = ctx
	_ = args
	return notImplemented("models", io)
}
