package cli

import "context"

func runCommand(ctx context.Context, args []string, io IO) int {
	_ = ctx
	_ = args
	return notImplemented("run", io)
}
