package acp

import (
	"encoding/base64"
	"encoding/json"
	"net/http"

	sdk "github.com/coder/acp-go-sdk"

	"prototyper/agentloop"
	"prototyper/store"
	"prototyper/tools"
)

// history is a chat as session updates, oldest first: each user message with its images,
// each answer's thinking and text, and each tool call in the state its record keeps (a call
// left pending by a run that is no longer live, or never recorded, was interrupted: failed).
func history(c agentloop.OpenedChat) []sdk.SessionUpdate {
	records := make(map[string]store.ToolCallRecord, len(c.ToolCalls))
	for _, r := range c.ToolCalls {
		records[r.ID] = r
	}
	ws := c.Chat.Workspace
	var out []sdk.SessionUpdate
	for _, m := range c.Messages {
		switch m.Role {
		case store.RoleUser:
			if m.Content != "" {
				out = append(out, sdk.UpdateUserMessageText(m.Content))
			}
			for _, img := range m.Images {
				out = append(out, sdk.UpdateUserMessage(sdk.ImageBlock(base64.StdEncoding.EncodeToString(img), http.DetectContentType(img))))
			}
		case store.RoleAssistant:
			if m.Thinking != "" {
				out = append(out, sdk.UpdateAgentThoughtText(m.Thinking))
			}
			if m.Content != "" {
				out = append(out, sdk.UpdateAgentMessageText(m.Content))
			}
			for _, tc := range m.ToolCalls {
				out = append(out, recordedCall(ws, tc, records[tc.ID], c.LiveRunID))
			}
		}
	}
	return out
}

// recordedCall is a stored tool call as the editor shows a finished one.
func recordedCall(ws string, tc store.ToolCall, r store.ToolCallRecord, liveRun string) sdk.SessionUpdate {
	status := sdk.ToolCallStatusFailed
	switch {
	case r.AwaitingApproval || (r.Pending && r.RunID == liveRun):
		status = sdk.ToolCallStatusPending
	case r.OK && !r.Pending:
		status = sdk.ToolCallStatusCompleted
	}
	var d tools.Details
	if len(r.Details) > 0 {
		_ = json.Unmarshal(r.Details, &d)
	}
	if r.Workspace != "" {
		ws = r.Workspace
	}
	return sdk.StartToolCall(sdk.ToolCallId(tc.ID), title(tc.Name, tc.Args),
		sdk.WithStartKind(kindOf(tc.Name)), sdk.WithStartStatus(status), sdk.WithStartRawInput(rawInput(tc.Args)),
		sdk.WithStartLocations(locations(ws, tc.Args)), sdk.WithStartContent(resultContent(ws, d, r.Output, "")),
		sdk.WithStartRawOutput(map[string]any{"output": r.Output}))
}
