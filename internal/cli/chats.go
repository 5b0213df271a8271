package cli

import "context"

func chatsCommand(ctx context.Context, args []string, io IO) int {
	_ = ctx
	_ = args
	return notImplemented("chats", io)
}
