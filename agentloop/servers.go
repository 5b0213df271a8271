package agentloop

// stopServers ends the development servers that chat's runs started (start_server's, kept
// in the workspace options' [tools.Servers]): they end with the chat's Stop and its
// deletion, while a run that simply ends leaves them running for the user to look at.
func (a *Agent) stopServers(chatID string) {
	if ss := a.cfg.Files.Servers; ss != nil {
		ss.StopChat(chatID)
	}
}
