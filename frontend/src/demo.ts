// A scripted run for the window in a plain browser (`npm run dev`, or the built page opened
// without the Go side): the FakeBackend answers each Send with thinking, a streamed Markdown
// answer and tool calls, delivered in batches the way the bridge sends them, so the window's
// real path is exercised: event batches → AppStore → per-frame delta merge → paint acks.
//
// URL parameters (all optional, with `?prompt=…` which sends at once):
//   tokens=N   tokens of one run (default 120)
//   rate=R     tokens per second (default 200)
//   seconds=S  keep the conversation going: when a run ends the next prompt is sent in the same
//              chat, until S seconds of streaming have passed (default 0: one run). Each run is
//              then a realistic agent turn: thinking, text, write_file and read_file cards with
//              a diff, more thinking, and an answer with headings, lists, code and a table.
//
// `window.__demoDone` is set when the last run ends; `window.__demoStats` counts what was sent
// and the delay from a batch's delivery to its paint acknowledgement (two frames after it was
// applied), in a fixed-size histogram so that a long run keeps no growing record.

import type { AgentEvent } from './backend'
import type { FakeBackend } from './fakeBackend'
import type { AppStore } from './state/store'

export interface DemoStats {
  runs: number
  tokens: number
  batches: number
  /** performance.now() of the first streamed token, 0 before. */
  streamStartedAt: number
  /** Delivery → Painted(seq) delays: count per 1-ms bucket (the last bucket is "or more"). */
  ackHist: number[]
  ackMax: number
}

declare global {
  interface Window {
    __demoDone?: boolean
    __demoStats?: DemoStats
  }
}

interface DemoOptions {
  tokens: number
  rate: number
  seconds: number
}

function options(params: URLSearchParams): DemoOptions {
  return {
    tokens: Number(params.get('tokens')) || 120,
    rate: Number(params.get('rate')) || 200,
    seconds: Number(params.get('seconds')) || 0,
  }
}

// A small deterministic generator, so that runs differ but every measurement sees the same text.
function random(seed: number): () => number {
  let x = seed >>> 0 || 1
  return () => {
    x ^= x << 13
    x ^= x >>> 17
    x ^= x << 5
    return (x >>> 0) / 4294967296
  }
}

const vocabulary = [
  'the', 'page', 'renders', 'a', '**list**', 'of', '`items`', 'with', 'styles,', 'and', 'layout', 'uses',
  'grid', 'for', 'cards', 'while', 'the', '`header`', 'stays', 'on', 'top.', 'Each', 'item', 'shows',
  'its', '*title*', 'date', 'state', 'so', 'users', 'can', 'scan', 'it', 'quickly.',
]

const codeSamples = [
  '```ts\nexport function total(items: Item[]): number {\n  return items.reduce((sum, it) => sum + it.price * it.qty, 0)\n}\n\nconst byDate = [...items].sort((a, b) => a.date.localeCompare(b.date))\n```',
  '```css\n.cards {\n  display: grid;\n  grid-template-columns: repeat(auto-fill, minmax(220px, 1fr));\n  gap: 12px;\n}\n.card:hover { box-shadow: 0 2px 8px rgb(0 0 0 / 0.12); }\n```',
  '```html\n<ul class="cards">\n  <li class="card"><h3>Title</h3><p>Due <time>2025-01-02</time></p></li>\n</ul>\n```',
  '```js\nfor (const item of items) {\n  const el = document.createElement("li")\n  el.textContent = `${item.title} (${item.qty})`\n  list.append(el)\n}\n```',
]

function sentence(rnd: () => number, words: number): string {
  const out: string[] = []
  for (let i = 0; i < words; i++) out.push(vocabulary[Math.floor(rnd() * vocabulary.length)])
  return out.join(' ')
}

/** Markdown of about `tokens` tokens (a token is a word or a piece of code), as streamed pieces. */
function answerTokens(tokens: number, rnd: () => number, rich: boolean): string[] {
  const blocks: string[] = []
  let count = 0
  let n = 0
  const add = (md: string) => {
    blocks.push(md)
    count += (md.match(/\S+/g) ?? []).length
  }
  if (rich) add('## Plan')
  while (count < tokens) {
    n++
    if (!rich) {
      // A long plain answer: paragraphs of bold and inline code, a code block every 400 tokens.
      add(n % 7 === 0 ? codeSamples[0] : sentence(rnd, 59))
      continue
    }
    const pick = n % 9
    if (pick === 0) add(`### Step ${n}`)
    else if (pick === 3) add(codeSamples[Math.floor(rnd() * codeSamples.length)])
    else if (pick === 5) add(Array.from({ length: 4 }, () => `- ${sentence(rnd, 8)}`).join('\n'))
    else if (pick === 7)
      add(
        '| file | change | lines |\n| --- | --- | ---: |\n' +
          Array.from({ length: 4 }, (_, i) => `| \`src/part${i}.ts\` | ${sentence(rnd, 3)} | ${Math.floor(rnd() * 90) + 1} |`).join('\n'),
      )
    else add(sentence(rnd, 30 + Math.floor(rnd() * 40)))
  }
  const text = blocks.join('\n\n') + '\n'
  return text.match(/\s*\S+\s*/g) ?? [text]
}

function diffOf(path: string, lines: number, rnd: () => number): string {
  const body = Array.from({ length: lines }, (_, i) => `${rnd() < 0.3 ? '-' : '+'}  line ${i}: ${sentence(rnd, 5)}`)
  return `--- a/${path}\n+++ b/${path}\n@@ -1,${lines} +1,${lines} @@\n${body.join('\n')}`
}

// One step of a scripted run: streamed tokens, or events sent at once (after a pause).
type Step =
  | { kind: 'stream'; type: 'thinking.delta' | 'text.delta'; messageId: string; parts: string[] }
  | { kind: 'events'; events: Array<Partial<AgentEvent> & Pick<AgentEvent, 'type'>>; pauseMs?: number }

// An assistant message streamed: it starts (after pauseMs), thinks, then writes its text.
function streamedMessage(messageId: string, thinking: string[], text: string[], pauseMs?: number): Step[] {
  return [
    { kind: 'events', pauseMs, events: [{ type: 'phase', phase: 'streaming', busy: true }, { type: 'message.started', role: 'assistant', messageId }] },
    { kind: 'stream', type: 'thinking.delta', messageId, parts: thinking },
    { kind: 'stream', type: 'text.delta', messageId, parts: text },
  ]
}

function script(run: number, prompt: string, opts: DemoOptions): { steps: Step[]; tokens: number } {
  const rnd = random(run * 7919)
  const m1 = `msg-${run}-a`
  const thinking = (words: number) =>
    `The user asked: ${prompt}. ${sentence(rnd, words)}`.match(/\S+\s*/g) ?? []
  if (opts.seconds <= 0) {
    // One long answer (the 10,000-token measurement): thinking, the answer, one write_file.
    const t1 = `run-${run}-t1`
    const think = thinking(10)
    const text = answerTokens(Math.max(1, opts.tokens - think.length), rnd, false)
    return {
      tokens: think.length + text.length,
      steps: [
        ...streamedMessage(m1, think, text),
        {
          kind: 'events',
          events: [
            { type: 'phase', phase: 'tools', busy: true },
            { type: 'tool.call', toolCallId: t1, messageId: m1, name: 'write_file', args: { path: 'index.html' }, state: 'running' },
          ],
        },
        {
          kind: 'events',
          pauseMs: 50,
          events: [
            { type: 'tool.result', toolCallId: t1, messageId: m1, ok: true, durationMs: 3, details: { path: 'index.html', bytes: 24, created: true, diff: '--- /dev/null\n+++ b/index.html\n@@ -0,0 +1 @@\n+<h1>Hello</h1>' } },
            { type: 'message.completed', messageId: m1, doneReason: 'stop', usage: { promptTokens: 420, evalTokens: opts.tokens, evalMs: (opts.tokens / opts.rate) * 1000, tokensPerSec: opts.rate } },
          ],
        },
      ],
    }
  }
  // An agent turn: think, say what it will do, write and read a file, think again, answer.
  const m2 = `msg-${run}-b`
  const write = `run-${run}-w`
  const read = `run-${run}-r`
  const path = `src/page${run}.ts`
  const think1 = thinking(40)
  const intro = answerTokens(Math.floor(opts.tokens * 0.15), rnd, true)
  const think2 = thinking(30)
  const answer = answerTokens(Math.max(1, opts.tokens - think1.length - intro.length - think2.length), rnd, true)
  const tokens = think1.length + intro.length + think2.length + answer.length
  const usage = { promptTokens: 900 + run * 50, evalTokens: tokens, evalMs: (tokens / opts.rate) * 1000, tokensPerSec: opts.rate }
  return {
    tokens,
    steps: [
      ...streamedMessage(m1, think1, intro),
      {
        kind: 'events',
        events: [
          { type: 'tool.call', toolCallId: write, messageId: m1, name: 'write_file', args: { path, content: sentence(rnd, 40) }, state: 'pending' },
          { type: 'tool.call', toolCallId: read, messageId: m1, name: 'read_file', args: { path: 'README.md' }, state: 'pending' },
          { type: 'message.completed', messageId: m1, doneReason: 'stop', usage: { ...usage, evalTokens: think1.length + intro.length } },
          { type: 'phase', phase: 'tools', busy: true },
          { type: 'tool.call', toolCallId: write, messageId: m1, name: 'write_file', state: 'running' },
        ],
      },
      {
        kind: 'events',
        pauseMs: 120,
        events: [
          { type: 'tool.result', toolCallId: write, messageId: m1, ok: true, durationMs: 118, output: 'wrote 1.2 kB', details: { path, bytes: 1200, changed: true, diff: diffOf(path, 18, rnd) } },
          { type: 'tool.call', toolCallId: read, messageId: m1, name: 'read_file', state: 'running' },
        ],
      },
      {
        kind: 'events',
        pauseMs: 20,
        events: [
          { type: 'tool.result', toolCallId: read, messageId: m1, ok: true, durationMs: 19, output: sentence(rnd, 60), details: { path: 'README.md', bytes: 380 } },
          { type: 'phase', phase: 'continuing', busy: true },
        ],
      },
      ...streamedMessage(m2, think2, answer, 150),
      { kind: 'events', events: [{ type: 'message.completed', messageId: m2, doneReason: 'stop', usage }] },
    ],
  }
}

const ackBuckets = 500

export function installDemo(backend: FakeBackend, params: URLSearchParams): void {
  const opts = options(params)
  const stats: DemoStats = { runs: 0, tokens: 0, batches: 0, streamStartedAt: 0, ackHist: new Array<number>(ackBuckets).fill(0), ackMax: 0 }
  window.__demoStats = stats
  // A long demo must not keep a record of every call, or it would measure that record.
  backend.recordCalls = false
  // Delivery time of the batch whose highest seq is the key; removed when it is acknowledged.
  const delivered = new Map<number, number>()
  const painted = backend.painted.bind(backend)
  backend.painted = (seq, running) => {
    const at = delivered.get(seq)
    if (at !== undefined) {
      delivered.delete(seq)
      const ms = performance.now() - at
      stats.ackHist[Math.min(ackBuckets - 1, Math.floor(ms))]++
      stats.ackMax = Math.max(stats.ackMax, ms)
    }
    return painted(seq, running)
  }

  let runs = 0
  let seq = 0
  backend.onSend = (chatId, prompt) => {
    const run = ++runs
    const runId = `run-${run}`
    const ev = (e: Partial<AgentEvent> & Pick<AgentEvent, 'type'>): AgentEvent => ({
      v: 1,
      seq: ++seq,
      chatId,
      runId,
      messageId: `msg-${run}-a`,
      at: new Date().toISOString(),
      ...e,
    })
    const send = (events: AgentEvent[]) => {
      if (events.length === 0) return
      stats.batches++
      delivered.set(events[events.length - 1].seq, performance.now())
      backend.emit(events)
    }
    send([ev({ type: 'run.started', model: backend.cfg.model }), ev({ type: 'phase', phase: 'submitted', busy: true })])
    const { steps, tokens } = script(run, prompt, opts)
    let step = 0
    let part = 0
    let credit = 0 // tokens that may be sent now
    let last = 0
    let waitUntil = 0 // end of a pause (a tool at work, the model reading its results)
    let armed = -1 // the step whose pause was started
    const tick = () => {
      // Everything due by now goes in one batch, as the bridge coalesces between acks.
      const now = performance.now()
      if (last && now >= waitUntil) credit += ((now - last) / 1000) * opts.rate
      last = now
      const batch: AgentEvent[] = []
      while (step < steps.length && now >= waitUntil) {
        const s = steps[step]
        if (s.kind === 'events') {
          if (s.pauseMs && armed !== step) {
            armed = step
            waitUntil = now + s.pauseMs
            break
          }
          batch.push(...s.events.map(ev))
          step++
          continue
        }
        if (credit < 1) break
        let text = ''
        while (part < s.parts.length && credit >= 1) {
          text += s.parts[part++]
          credit--
        }
        if (!stats.streamStartedAt) stats.streamStartedAt = now
        batch.push(ev({ type: s.type, messageId: s.messageId, text }))
        if (part >= s.parts.length) {
          step++
          part = 0
        }
      }
      if (step >= steps.length) credit = 0
      send(batch)
      if (step < steps.length) {
        setTimeout(tick, 16)
        return
      }
      stats.tokens += tokens
      stats.runs++
      setTimeout(() => {
        send([ev({ type: 'phase', phase: 'idle' }), ev({ type: 'run.finished', stopReason: 'completed' })])
        for (const l of finished.splice(0)) l()
      }, 0)
    }
    setTimeout(tick, 300)
  }
}

const finished: Array<() => void> = []

/**
 * Sends `prompt` through the store (as the composer does), and again in the same chat each time
 * a run ends while `seconds` of streaming have not passed. `__demoDone` turns true at the end.
 */
export async function runDemo(store: AppStore, prompt: string, params: URLSearchParams): Promise<void> {
  const { seconds } = options(params)
  window.__demoDone = false
  for (let n = 1; ; n++) {
    const done = new Promise<void>((resolve) => finished.push(resolve))
    await store.send(n === 1 ? prompt : `${prompt} (${n})`)
    await done
    const stats = window.__demoStats
    const elapsed = stats?.streamStartedAt ? (performance.now() - stats.streamStartedAt) / 1000 : 0
    if (seconds <= 0 || elapsed >= seconds) break
    await new Promise((r) => setTimeout(r, 400)) // the user reads and types the next prompt
  }
  window.__demoDone = true
}
