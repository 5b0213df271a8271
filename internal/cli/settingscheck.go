package cli

import (
	"prototyper/model"
	"prototyper/store"
	"prototyper/tools/mcptools"
)

// checkSettings is the [store.Options.CheckSettings] of every database the app opens: the
// rules of the settings that the store cannot judge, each from the room that owns it — the
// server addresses from the model layer, the MCP servers' configuration from mcptools.
func checkSettings(s store.Settings) error {
	if err := model.CheckSettings(s); err != nil {
		return err
	}
	if len(s.MCPServers) > 0 {
		if _, err := mcptools.ParseSettings(s.MCPServers); err != nil {
			return &store.InvalidSettingError{Setting: "mcpServers", Reason: err.Error()}
		}
	}
	return nil
}
