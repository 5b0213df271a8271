// A scripted run for the window in a plain browser (`npm run dev`, or the built page opened
// without the Go side): the FakeBackend answers each Send with thinking, a streamed Markdown
// answer, and a write_file call, delivered in batches the way the bridge sends them. With
// `?tokens=N&rate=R` in the URL the answer is N tokens at R tokens/s, to measure rendering
// (long tasks, frame rate, memory) in a browser. `window.__demoDone` is set when a run ends.

import type { AgentEvent } from './backend'
import type { FakeBackend } from './fakeBackend'

declare global {
  interface Window {
    __demoDone?: boolean
  }
}

const words = ['the', 'page', 'renders', 'a', '**list**', 'of', '`items`', 'with', 'styles,', 'and']

function answerText(tokens: number): string[] {
  const out: string[] = ['## Plan\n\n']
  for (let i = 0; i < tokens; i++) {
    if (i % 400 === 399) out.push('\n\n```ts\nconst total = items.reduce((a, b) => a + b, 0)\n```\n\n')
    else if (i % 60 === 59) out.push('\n\n')
    else out.push(`${words[i % words.length]} `)
  }
  return out
}

export function installDemo(backend: FakeBackend, params: URLSearchParams): void {
  const tokens = Number(params.get('tokens')) || 120
  const rate = Number(params.get('rate')) || 200
  let runs = 0
  backend.onSend = (chatId, prompt) => {
    const runId = `run-${++runs}`
    const msg = `msg-${runs}`
    let seq = Date.now() * 10
    const ev = (e: Partial<AgentEvent> & Pick<AgentEvent, 'type'>): AgentEvent => ({
      v: 1,
      seq: ++seq,
      chatId,
      runId,
      messageId: msg,
      at: new Date().toISOString(),
      ...e,
    })
    const send = (events: AgentEvent[]) => backend.emit(events)
    window.__demoDone = false
    send([ev({ type: 'run.started', model: backend.cfg.model }), ev({ type: 'phase', phase: 'submitted' })])
    const parts = answerText(tokens)
    const thinking = `The user asked: ${prompt}. I will write index.html, then explain.`.split(' ')
    let i = 0
    let t = 0
    const started = performance.now()
    const frame = () => {
      // Everything due by now goes in one batch, as the bridge coalesces between acks.
      const due = Math.floor(((performance.now() - started) / 1000) * rate)
      const batch: AgentEvent[] = []
      if (t === 0 && i === 0) batch.push(ev({ type: 'phase', phase: 'streaming' }), ev({ type: 'message.started', role: 'assistant' }))
      let text = ''
      let thought = ''
      while (t < thinking.length && t + i < due) thought += `${thinking[t++]} `
      while (t >= thinking.length && i < parts.length && t + i < due) text += parts[i++]
      if (thought) batch.push(ev({ type: 'thinking.delta', text: thought }))
      if (text) batch.push(ev({ type: 'text.delta', text }))
      if (i >= parts.length) {
        batch.push(
          ev({ type: 'phase', phase: 'tools' }),
          ev({ type: 'tool.call', toolCallId: `${runId}-t1`, name: 'write_file', args: { path: 'index.html' }, state: 'running' }),
        )
        send(batch)
        setTimeout(() => {
          send([
            ev({ type: 'tool.result', toolCallId: `${runId}-t1`, ok: true, durationMs: 3, details: { path: 'index.html', bytes: 24, created: true, diff: '--- /dev/null\n+++ b/index.html\n@@ -0,0 +1 @@\n+<h1>Hello</h1>' } }),
            ev({ type: 'message.completed', doneReason: 'stop', usage: { promptTokens: 420, evalTokens: tokens, evalMs: (tokens / rate) * 1000, tokensPerSec: rate } }),
            ev({ type: 'phase', phase: 'idle' }),
            ev({ type: 'run.finished', stopReason: 'completed' }),
          ])
          window.__demoDone = true
        }, 50)
        return
      }
      if (batch.length) send(batch)
      setTimeout(frame, 16)
    }
    setTimeout(frame, 300)
  }
}
