package agentloop

import "sync"

// admission is what admitting a message opened and read that its run needs too: the
// workspace's toolbox, its project instructions, the model's context. The run of the message
// takes it instead of opening and reading them again between Enter and the request; it was
// read as the message was sent, so the model never reads instructions older than the message.
// Whoever admitted the message releases it once the run was started or refused: the toolbox
// is closed unless a run took it.
type admission struct {
	workspace  string
	model      string
	contextCap int // the settings' cap numCtx was found with
	numCtx     int
	instr      instructions
	residency  *residencyAnswer // asked as the message was admitted (nil: the server cannot say)

	mu      sync.Mutex
	tools   Toolbox // nil once taken or released
	closeTB func() error
}

// takeTools hands the admission's toolbox to the run of workspace; ok is false when there is
// none to take (no admission, taken or released already, or of another workspace): the run
// opens its own.
func (ad *admission) takeTools(workspace string) (tb Toolbox, closeTB func() error, ok bool) {
	if ad == nil {
		return nil, nil, false
	}
	ad.mu.Lock()
	defer ad.mu.Unlock()
	if ad.tools == nil || ad.workspace != workspace {
		return nil, nil, false
	}
	tb, closeTB = ad.tools, ad.closeTB
	ad.tools, ad.closeTB = nil, nil
	return tb, closeTB, true
}

// release closes the toolbox unless a run took it. It is safe to call more than once.
func (ad *admission) release() {
	if ad == nil {
		return
	}
	if _, closeTB, ok := ad.takeTools(ad.workspace); ok {
		_ = closeTB()
	}
}

// instructionsFor returns the instructions read as the message was admitted, when they are
// of workspace (ok false: read them now).
func (ad *admission) instructionsFor(workspace string) (instructions, bool) {
	if ad == nil || ad.workspace != workspace {
		return instructions{}, false
	}
	return ad.instr, true
}

// numCtxFor returns the context admitting the message found for modelName with the cap
// contextCap (ok false: ask again).
func (ad *admission) numCtxFor(modelName string, contextCap int) (int, bool) {
	if ad == nil || ad.model != modelName || ad.contextCap != contextCap || ad.numCtx <= 0 {
		return 0, false
	}
	return ad.numCtx, true
}
