import { describe, expect, it } from 'vitest'
import type { AgentEvent, OpenedChat } from '../backend'
import { offerAnswerText } from '../components/SummaryOfferCard'
import { chatFromSnapshot, emptyAnswerCode, emptyChat, mergeLive, reduceChat, type ChatState } from './chatReducer'

// A call that did not run is no failure, and what a run said besides its messages (why it
// stopped as a loop, which tools it could not offer) is said again when its chat is reopened.

function ev(seq: number, e: Partial<AgentEvent> & Pick<AgentEvent, 'type'>): AgentEvent {
  return { v: 1, seq, chatId: 'c1', runId: 'r1', messageId: 'm2', at: '2025-01-01T00:00:00Z', ...e }
}

function apply(events: AgentEvent[], start: ChatState = emptyChat('c1')): ChatState {
  return events.reduce(reduceChat, start)
}

function kinds(s: ChatState): string[] {
  return s.timeline.map((e) => (e.kind === 'notice' ? `notice:${e.text}` : `${e.kind}:${e.id}`))
}

const loopSentence = 'The model called list_dir {"path":"."} 3 times in a row with the same arguments; the run was stopped as a loop.'
const toolsSentence = 'The MCP server files could not start: prototyper-files is not installed.'

describe('a call that did not run', () => {
  it.each(['replied', 'stopped', 'skipped', 'repeated', 'loop'] as const)('is not run, not failed, when its result says why (%s)', (why) => {
    const s = apply([
      ev(1, { type: 'tool.call', toolCallId: 't1', name: 'write_file', state: 'awaiting_approval' }),
      ev(2, { type: 'tool.result', toolCallId: 't1', ok: false, output: 'the user replied instead of approving', notRun: why }),
    ])
    expect(s.tools.t1).toMatchObject({ state: 'not_run', notRun: why })
  })

  it('still fails when its result does not say it did not run', () => {
    const s = apply([
      ev(1, { type: 'tool.call', toolCallId: 't1', name: 'read_file', state: 'running' }),
      ev(2, { type: 'tool.result', toolCallId: 't1', ok: false, output: 'not found: a.txt' }),
    ])
    expect(s.tools.t1.state).toBe('failed')
  })

  it('is not run when its chat is reopened', () => {
    // the state as agentloop.RecordState gives it (its order: agentloop/toolstate_test.go)
    const s = chatFromSnapshot(opened({ toolCalls: [record({ notRun: 'replied', output: 'the user replied instead of approving' })], toolStates: { t1: 'not_run' } }))
    expect(s.tools.t1).toMatchObject({ state: 'not_run', notRun: 'replied' })
  })
})

const stoppedOutput = 'stopped: the run was stopped while the MCP server everything ran this call'

describe('a call the user stopped while it ran', () => {
  it('is stopped, not failed, when its result says so', () => {
    const s = apply([
      ev(1, { type: 'tool.call', toolCallId: 't1', name: 'mcp__everything__longRunningOperation', state: 'running' }),
      ev(2, { type: 'tool.result', toolCallId: 't1', ok: false, output: stoppedOutput, stopped: true }),
      ev(3, { type: 'run.finished', stopReason: 'aborted' }),
    ])
    expect(s.tools.t1).toMatchObject({ state: 'stopped', output: stoppedOutput })
  })

  it('is stopped when its chat is reopened; a record stored before the field existed still reads failed', () => {
    // the states as agentloop.RecordState gives them (its order: agentloop/toolstate_test.go)
    const stopped = chatFromSnapshot(opened({ toolCalls: [record({ output: stoppedOutput, stopped: true })], toolStates: { t1: 'stopped' } }))
    expect(stopped.tools.t1.state).toBe('stopped')
    const older = chatFromSnapshot(opened({ toolCalls: [record({ output: stoppedOutput })], toolStates: { t1: 'failed' } }))
    expect(older.tools.t1.state).toBe('failed')
  })
})

function record(over: Partial<NonNullable<OpenedChat['toolCalls']>[number]> = {}) {
  return { id: 't1', chatId: 'c1', runId: 'r1', messageId: 'm2', name: 'list_dir', pending: false, ok: false, finishedAt: '2025-01-01T00:00:02Z', ...over }
}

function opened(over: Partial<OpenedChat> = {}): OpenedChat {
  return {
    chat: { id: 'c1', title: 't' } as OpenedChat['chat'],
    messages: [
      { id: 'm1', chatId: 'c1', runId: 'r1', role: 'user', content: 'list it', complete: true },
      { id: 'm2', chatId: 'c1', runId: 'r1', role: 'assistant', content: '', toolCalls: [{ id: 't1', name: 'list_dir' }], complete: true },
      { id: 'm3', chatId: 'c1', runId: 'r2', role: 'user', content: 'again', complete: true },
      { id: 'm4', chatId: 'c1', runId: 'r2', role: 'assistant', content: 'Done.', complete: true },
    ],
    toolCalls: [record()],
    phase: 'idle',
    liveRunId: '',
    ...over,
  } as OpenedChat
}

describe('a chat reopened from the store', () => {
  it('says why its run stopped as a loop, after that run, as the live view did', () => {
    const s = chatFromSnapshot(opened({ notes: [{ runId: 'r1', stopReason: 'loop', message: loopSentence }] }))
    expect(kinds(s)).toEqual(['message:m1', 'message:m2', 'tool:t1', `notice:${loopSentence}`, 'message:m3', 'message:m4'])
    expect(s.timeline[3]).toMatchObject({ tone: 'error' })
    const live = apply([ev(1, { type: 'run.finished', stopReason: 'loop', message: loopSentence })])
    expect(live.timeline[0]).toMatchObject({ kind: 'notice', tone: 'error', text: loopSentence })
  })

  it('keeps the code of the sentence that ended its run on an empty answer, as the live view did', () => {
    const said = 'Nothing came back, also when asked again.'
    const s = chatFromSnapshot(opened({ notes: [{ runId: 'r1', stopReason: 'completed', code: emptyAnswerCode, message: said }] }))
    expect(s.timeline[3]).toMatchObject({ kind: 'notice', tone: 'info', text: said, code: emptyAnswerCode })
    const live = apply([ev(1, { type: 'run.finished', stopReason: 'completed', code: emptyAnswerCode, message: said })])
    expect(live.timeline[0]).toMatchObject({ kind: 'notice', tone: 'info', text: said, code: emptyAnswerCode })
  })

  it('says which tools its run could not offer, before that run’s answer', () => {
    const s = chatFromSnapshot(opened({ notes: [{ runId: 'r2', code: 'tools_unavailable', message: toolsSentence }] }))
    expect(kinds(s)).toEqual(['message:m1', 'message:m2', 'tool:t1', 'message:m3', `notice:${toolsSentence}`, 'message:m4'])
    expect(s.timeline[4]).toMatchObject({ tone: 'error', code: 'tools_unavailable' })
  })

  it('draws an offer a run made mid-run after that run’s work, where the live view drew it', () => {
    const offer = { id: 'o1', messages: 3, tokens: 2500, numCtx: 2048, model: 'm', choice: 'leave_out' as const }
    const s = chatFromSnapshot(opened({ notes: [{ runId: 'r1', message: '3 earlier messages no longer fit.', offer }] }))
    expect(kinds(s)).toEqual(['message:m1', 'message:m2', 'tool:t1', 'offer:o1', 'message:m3', 'message:m4'])
  })

  it('says only that an offer was not answered when the app ended while it waited (no Stop)', () => {
    expect(offerAnswerText('')).toBe('Not answered.')
    expect(offerAnswerText('none')).toMatch(/stopped/)
    expect(offerAnswerText('leave_out')).toMatch(/from now on this chat leaves out/)
  })

  it('says nothing of a run none of whose messages is shown (an earlier version)', () => {
    const s = chatFromSnapshot(opened({ notes: [{ runId: 'r-hidden', stopReason: 'loop', message: loopSentence }] }))
    expect(kinds(s).some((k) => k.startsWith('notice:'))).toBe(false)
  })

  it('ignores a note it cannot read', () => {
    const s = chatFromSnapshot(opened({ notes: [{ runId: 'r1', message: '' }, null] as unknown as OpenedChat['notes'] }))
    expect(kinds(s).some((k) => k.startsWith('notice:'))).toBe(false)
  })

  it('does not say the same sentence twice when the window also saw it live', () => {
    const live = apply([ev(9, { type: 'run.finished', stopReason: 'loop', message: loopSentence })])
    const s = mergeLive(chatFromSnapshot(opened({ notes: [{ runId: 'r1', stopReason: 'loop', message: loopSentence }] })), live)
    expect(kinds(s).filter((k) => k === `notice:${loopSentence}`)).toHaveLength(1)
  })
})
