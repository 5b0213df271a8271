package cli

import "context"

func pullCommand(ctx context.Context, args []string, io IO) int {
	_ = ctx
	_ = args
	return notImplemented("pull", io)
}
