package agentloop

import (
	"cmp"
	"encoding/json"
	"errors"
	"fmt"
	"strings"

	"prototyper/store"
	"prototyper/tools"
)

// ErrNotACommand is returned by [Agent.AllowCommand] for a call of another tool than
// run_command.
var ErrNotACommand = errors.New("the call is not a command")

// AllowCommand allows the waiting run_command call toolCallID, with the host's network when
// network. When pattern is not empty it also remembers, in the settings, "always allow
// commands starting with pattern in this workspace" with that network choice, and allows
// the calls of the same batch it covers. [Agent.Decide] allowing a command allows it
// without network.
func (a *Agent) AllowCommand(toolCallID string, network bool, pattern string) error {
	cs := a.chatWaitingFor(toolCallID)
	if cs == nil {
		return fmt.Errorf("%w (tool call %q)", ErrNoPendingApproval, toolCallID)
	}
	pattern = strings.Join(strings.Fields(pattern), " ")
	rule := store.CommandRule{Pattern: pattern, Network: network}
	cs.mu.Lock()
	i := cs.paused.index(toolCallID)
	if i < 0 || cs.paused.Calls[i].Decision != "" {
		cs.mu.Unlock()
		return fmt.Errorf("%w (tool call %q)", ErrNoPendingApproval, toolCallID)
	}
	if cs.paused.Calls[i].Name != tools.RunCommand {
		cs.mu.Unlock()
		return fmt.Errorf("%w: %s is a call of %s", ErrNotACommand, toolCallID, cs.paused.Calls[i].Name)
	}
	cs.paused.Calls[i].Network = network
	var same []string
	if pattern != "" {
		for j := range cs.paused.Calls {
			c := &cs.paused.Calls[j]
			if j != i && c.Name == tools.RunCommand && c.Outcome == nil && c.Policy == ApproveAsk && c.Decision == "" &&
				store.CommandMatches(pattern, commandOf(c.Args)) {
				c.Network = network
				same = append(same, c.ID)
			}
		}
	}
	cs.mu.Unlock()
	reason := textAllowedOnce
	if pattern != "" {
		chat, err := a.cfg.Store.Chat(cs.id)
		if err != nil {
			return err
		}
		if err := a.rememberCommandRule(cmp.Or(chat.Workspace, a.cfg.Workspace), rule); err != nil {
			return err
		}
		reason = fmt.Sprintf("commands starting with %q always allowed in this workspace", pattern)
	}
	if network {
		reason += ", with network"
	}
	for _, id := range same {
		if err := a.Decide(id, DecisionAllow, reason); err != nil {
			return err
		}
	}
	return a.Decide(toolCallID, DecisionAllow, reason)
}

// commandOf is the command line of a run_command call's arguments ("" when unreadable).
func commandOf(args json.RawMessage) string {
	var v struct {
		Command string `json:"command"`
	}
	if json.Unmarshal(args, &v) != nil {
		return ""
	}
	return v.Command
}

// approveCommand asks a command approver about call c: an allow sets the call's network,
// and a pattern becomes a rule of the run's workspace.
func (r *run) approveCommand(ca CommandApprover, c *plannedCall, req ApprovalRequest) (decision, reason string, err error) {
	d, err := ca.ApproveCommand(r.ctx, req)
	if err != nil || d.Decision != DecisionAllow {
		return d.Decision, d.Reason, err
	}
	c.Network = d.Network
	reason = textAllowedOnce
	if d.Pattern != "" {
		if err := r.a.rememberCommandRule(r.workspace, store.CommandRule{Pattern: d.Pattern, Network: d.Network}); err != nil {
			return "", "", err
		}
		reason = fmt.Sprintf("commands starting with %q always allowed in this workspace", d.Pattern)
	}
	if d.Network {
		reason += ", with network"
	}
	return DecisionAllow, reason, nil
}

// rememberCommandRule adds rule to the workspace's command rules, replacing one of the same
// pattern.
func (a *Agent) rememberCommandRule(workspace string, rule store.CommandRule) error {
	_, err := a.cfg.Store.UpdateSettings(func(s *store.Settings) error {
		if s.CommandRules == nil {
			s.CommandRules = map[string][]store.CommandRule{}
		}
		rules := s.CommandRules[workspace][:0:0]
		for _, r := range s.CommandRules[workspace] {
			if r.Pattern != rule.Pattern {
				rules = append(rules, r)
			}
		}
		s.CommandRules[workspace] = append(rules, rule)
		return nil
	})
	return err
}
