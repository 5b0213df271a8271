#!/usr/bin/env node
// Streaming benchmark of the chat window in headless Chromium.
//
// It builds the bundle in bench mode (`vite build --mode bench` into bench/.dist: the production
// bundle plus the in-memory demo backend, which the desktop app's production build leaves out),
// serves it on 127.0.0.1, and opens it in Debian's Chromium through playwright-core. The page
// runs on the demo backend, and `?prompt=…` starts a scripted run (src/demo.ts) that goes
// through the window's real path:
// event batches → AppStore → per-frame delta merge → React → paint acknowledgements.
//
//   A. one 10,000-token answer at 200 tokens/s (about 50 s): long tasks (count, longest,
//      how many ≥ 50 ms), frame rate (requestAnimationFrame callbacks per second: mean, p5 and
//      the worst 1-s window, against the idle rate of the same headless window), and the delay
//      from a batch's delivery to its paint acknowledgement (two frames after it was applied).
//   B. ten minutes of conversation at 200 tokens/s in one chat (agent turns with thinking,
//      Markdown with code and tables, write_file/read_file cards with diffs): JS heap after a
//      forced garbage collection, DOM elements, and the renderer's memory (proportional set size
//      of its process), every minute; each must end within 120 % of its 1-minute sample. At one
//      minute the chat has had three full turns and already fills the page's character budget
//      (see ChatView), so the first sample is a chat in steady use, not an empty window.
//
// Usage (from frontend/):
//   npm run bench:stream                      both scenarios, B for 10 minutes
//   npm run bench:stream -- --minutes=2       a quick smoke run of B
//   npm run bench:stream -- --scenario=a      only A (or b)
//   options: --tokens=10000 --rate=200 --minutes=10 --no-build --json=FILE --check
//            --snapshots=DIR (B writes a heap snapshot at every sample; compare two with
//            `node bench/heap-diff.mjs DIR/1min.heapsnapshot DIR/2min.heapsnapshot`)
//            --memory-detail (B also asks Chromium's memory-infra for the renderer's allocators at
//            every sample: Blink's garbage-collected heap — resident, committed and live —,
//            malloc, PartitionAlloc, V8 and the compositor's tiles; the tracing it needs adds a
//            fixed ~4 MB shared buffer to the renderer from the first sample on)
//   (or the environment: BENCH_SCENARIO, BENCH_MINUTES, BENCH_TOKENS, BENCH_RATE, CHROMIUM)
// --check exits 1 when a target is missed; without it the verdict is printed only.
// Chromium comes from the system: `apt-get install -y chromium`.

import { spawnSync } from 'node:child_process'
import { createReadStream, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs'
import { createServer } from 'node:http'
import { tmpdir } from 'node:os'
import { extname, join, normalize, resolve, sep } from 'node:path'
import { fileURLToPath } from 'node:url'

const here = fileURLToPath(new URL('.', import.meta.url))
const root = resolve(here, '..')
// Not dist/: that folder is what the desktop app embeds, and it must hold no demo code.
const dist = join(root, 'bench', '.dist')

// ---- options ------------------------------------------------------------------------------

function option(name, env, fallback) {
  const flag = process.argv.find((a) => a === `--${name}` || a.startsWith(`--${name}=`))
  if (flag) return flag.includes('=') ? flag.slice(flag.indexOf('=') + 1) : 'true'
  return process.env[env] ?? fallback
}

const opts = {
  scenario: option('scenario', 'BENCH_SCENARIO', 'all').toLowerCase(),
  minutes: Number(option('minutes', 'BENCH_MINUTES', '10')),
  tokens: Number(option('tokens', 'BENCH_TOKENS', '10000')),
  rate: Number(option('rate', 'BENCH_RATE', '200')),
  build: option('no-build', 'BENCH_NO_BUILD', '') === '',
  json: option('json', 'BENCH_JSON', ''),
  check: option('check', 'BENCH_CHECK', '') !== '',
  chromium: option('chromium', 'CHROMIUM', '/usr/bin/chromium'),
  snapshots: option('snapshots', 'BENCH_SNAPSHOTS', ''),
  memoryDetail: option('memory-detail', 'BENCH_MEMORY_DETAIL', '') !== '',
}
if (!['a', 'b', 'all'].includes(opts.scenario)) fail(`--scenario must be a, b or all, not ${opts.scenario}.`)
if (!(opts.minutes >= 1)) fail('--minutes must be at least 1 (the first memory sample is at 1 minute).')

function fail(message) {
  console.error(`stream-bench: ${message}`)
  process.exit(2)
}

// ---- build and serve ----------------------------------------------------------------------

function build() {
  console.log('Building the bundle with the demo backend (vite build --mode bench)…')
  const r = spawnSync('npx', ['vite', 'build', '--mode', 'bench', '--outDir', dist, '--emptyOutDir', '--logLevel', 'warn'], {
    cwd: root,
    stdio: 'inherit',
  })
  if (r.status !== 0) fail('vite build failed; run `npx vite build --mode bench` to see why.')
}

const types = {
  '.html': 'text/html; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.svg': 'image/svg+xml',
  '.json': 'application/json',
  '.woff2': 'font/woff2',
  '.png': 'image/png',
}

function serve() {
  const server = createServer((req, res) => {
    const path = decodeURIComponent(new URL(req.url ?? '/', 'http://x').pathname)
    let file = normalize(join(dist, path))
    if (!file.startsWith(dist + sep) && file !== dist) {
      res.writeHead(403).end()
      return
    }
    if (!existsSync(file) || statSync(file).isDirectory()) file = join(dist, 'index.html')
    res.writeHead(200, { 'content-type': types[extname(file)] ?? 'application/octet-stream', 'cache-control': 'no-store' })
    createReadStream(file).pipe(res)
  })
  return new Promise((ok) => server.listen(0, '127.0.0.1', () => ok(server)))
}

// ---- the browser --------------------------------------------------------------------------

const chromiumArgs = [
  '--headless',
  '--no-sandbox',
  '--disable-gpu',
  '--disable-quic',
  '--no-first-run',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
]

async function launch(userDataDir) {
  let chromium
  try {
    ;({ chromium } = await import('playwright-core'))
  } catch {
    fail('playwright-core is not installed: run `npm ci` in frontend/.')
  }
  // A persistent context is how Playwright takes our own, fresh --user-data-dir.
  return chromium.launchPersistentContext(userDataDir, {
    executablePath: opts.chromium,
    headless: true,
    args: chromiumArgs,
    viewport: { width: 1280, height: 800 },
  })
}

// Installed before the page's own scripts: long tasks and rAF cadence, in fixed-size records.
function instrument() {
  const b = {
    longTasks: [], // [startTime, duration]
    windows: [], // rAF callbacks in each full 1-s window while recording
    recording: false,
    windowStart: 0,
    frames: 0,
    prev: 0,
    maxGap: 0,
    gapsOver34: 0, // intervals that missed at least one 60-Hz frame
    gapsOver50: 0,
  }
  window.__bench = b
  try {
    new PerformanceObserver((list) => {
      for (const e of list.getEntries()) if (b.longTasks.length < 100000) b.longTasks.push([e.startTime, e.duration])
    }).observe({ type: 'longtask' })
  } catch {
    b.noLongTaskObserver = true
  }
  const loop = (t) => {
    if (b.recording) {
      if (b.prev) {
        const gap = t - b.prev
        b.maxGap = Math.max(b.maxGap, gap)
        if (gap > 34) b.gapsOver34++
        if (gap > 50) b.gapsOver50++
      }
      b.prev = t
      b.frames++
      if (t - b.windowStart >= 1000) {
        b.windows.push((b.frames * 1000) / (t - b.windowStart))
        b.windowStart = t
        b.frames = 0
      }
    }
    requestAnimationFrame(loop)
  }
  requestAnimationFrame(loop)
  b.start = () => {
    b.recording = true
    b.windowStart = performance.now()
    b.frames = 0
    b.prev = 0
    b.maxGap = 0
    b.gapsOver34 = 0
    b.gapsOver50 = 0
    b.windows = []
    b.startedAt = performance.now()
  }
  b.stop = () => {
    b.recording = false
    b.stoppedAt = performance.now()
  }
}

// ---- statistics ---------------------------------------------------------------------------

function percentile(sorted, p) {
  if (sorted.length === 0) return NaN
  const i = Math.min(sorted.length - 1, Math.max(0, Math.floor((p / 100) * (sorted.length - 1))))
  return sorted[i]
}

function histPercentile(hist, p) {
  const total = hist.reduce((a, b) => a + b, 0)
  let seen = 0
  for (let i = 0; i < hist.length; i++) {
    seen += hist[i]
    if (seen >= (p / 100) * total) return i + 1 // bucket i holds [i, i+1) ms
  }
  return NaN
}

function histMean(hist) {
  let n = 0
  let sum = 0
  hist.forEach((c, i) => {
    n += c
    sum += c * (i + 0.5)
  })
  return n ? sum / n : NaN
}

const f1 = (x) => (Number.isFinite(x) ? x.toFixed(1) : '–')
const mb = (bytes) => (bytes / 1048576).toFixed(2)

function table(rows, header) {
  const all = [header, ...rows].map((r) => r.map(String))
  const widths = header.map((_, i) => Math.max(...all.map((r) => r[i].length)))
  const line = (r) => '| ' + r.map((c, i) => (i === 0 ? c.padEnd(widths[i]) : c.padStart(widths[i]))).join(' | ') + ' |'
  return [line(all[0]), '|' + widths.map((w, i) => (i === 0 ? '-'.repeat(w + 2) : '-'.repeat(w + 1) + ':')).join('|') + '|', ...all.slice(1).map(line)].join('\n')
}

// ---- renderer memory from /proc -----------------------------------------------------------

// The page's renderer is the one that has worked most (the others are Chromium's own pages and
// a spare); its proportional set size is what the page costs the machine.
async function rendererMemory(browserCdp) {
  try {
    const { processInfo } = await browserCdp.send('SystemInfo.getProcessInfo')
    const r = processInfo.filter((p) => p.type === 'renderer').sort((a, b) => b.cpuTime - a.cpuTime)[0]
    const roll = readFileSync(`/proc/${r.id}/smaps_rollup`, 'utf8')
    const kb = (name) => Number(new RegExp(`^${name}:\\s+(\\d+)`, 'm').exec(roll)?.[1] ?? NaN) * 1024
    return { pss: kb('Pss'), rss: kb('Rss'), pid: r.id }
  } catch {
    return { pss: NaN, rss: NaN, pid: 0 }
  }
}

// The renderer's memory by allocator, from one memory-infra dump (the categories Chromium's
// about://tracing shows). Blink's heap is garbage-collected in pages: `resident` is what its
// pages hold in memory, `live` what the last collection kept; the difference is free space in
// pages that were touched and not given back.
async function allocatorMemory(browserCdp, pid) {
  const events = []
  const onData = (e) => events.push(...e.value)
  browserCdp.on('Tracing.dataCollected', onData)
  try {
    const done = new Promise((ok) => browserCdp.once('Tracing.tracingComplete', ok))
    await browserCdp.send('Tracing.start', {
      traceConfig: { includedCategories: ['disabled-by-default-memory-infra'], excludedCategories: ['*'], memoryDumpConfig: { triggers: [] } },
      transferMode: 'ReportEvents',
    })
    await browserCdp.send('Tracing.requestMemoryDump', { deterministic: true, levelOfDetail: 'background' })
    await browserCdp.send('Tracing.end')
    await done
  } finally {
    browserCdp.off('Tracing.dataCollected', onData)
  }
  const out = {}
  for (const e of events) {
    if (e.ph !== 'v' || e.pid !== pid) continue
    for (const [name, d] of Object.entries(e.args?.dumps?.allocators ?? {})) {
      for (const [attr, v] of Object.entries(d.attrs ?? {})) if (v.units === 'bytes') out[`${name}:${attr}`] = parseInt(v.value, 16)
    }
  }
  const get = (k) => out[k] ?? NaN
  return {
    blinkResident: get('blink_gc/main/heap:size'),
    blinkCommitted: get('blink_gc/main/heap:committed_size'),
    blinkLive: get('blink_gc/main/heap:allocated_objects_size'),
    malloc: get('malloc:size'),
    partitionAlloc: get('partition_alloc:size'),
    v8: get('v8:size'),
    tiles: get('cc:size'),
  }
}

// ---- scenarios ----------------------------------------------------------------------------

const sleep = (ms) => new Promise((r) => setTimeout(r, ms))

async function idleFrameRate(page, base) {
  await page.goto(base)
  await page.waitForSelector('[data-testid="composer"]')
  await sleep(1000)
  await page.evaluate(() => window.__bench.start())
  await sleep(4000)
  const w = await page.evaluate(() => window.__bench.windows)
  return w.reduce((a, b) => a + b, 0) / w.length
}

async function scenarioA(context, base) {
  const page = context.pages()[0] ?? (await context.newPage())
  const idleFps = await idleFrameRate(page, base)
  const url = `${base}?prompt=${encodeURIComponent('Build a page that lists items')}&tokens=${opts.tokens}&rate=${opts.rate}`
  console.log(`A: ${opts.tokens} tokens at ${opts.rate} tokens/s (about ${Math.round(opts.tokens / opts.rate)} s)…`)
  await page.goto(url)
  await page.waitForFunction(() => window.__demoStats?.streamStartedAt > 0, null, { timeout: 30000, polling: 50 })
  await page.evaluate(() => window.__bench.start())
  const timeout = (opts.tokens / opts.rate) * 2000 + 60000
  await page.waitForFunction(() => window.__demoDone === true, null, { timeout, polling: 250 })
  await sleep(500) // the last acknowledgements
  const r = await page.evaluate(() => {
    const b = window.__bench
    b.stop()
    const s = window.__demoStats
    return {
      longTasks: b.longTasks.filter(([t]) => t >= b.startedAt && t <= b.stoppedAt).map(([, d]) => d),
      longTaskAt: b.longTasks.filter(([t]) => t >= b.startedAt && t <= b.stoppedAt).map(([t, d]) => [Math.round(t - s.streamStartedAt), d]),
      noLongTaskObserver: !!b.noLongTaskObserver,
      windows: b.windows,
      maxGap: b.maxGap,
      gapsOver34: b.gapsOver34,
      gapsOver50: b.gapsOver50,
      seconds: (b.stoppedAt - s.streamStartedAt) / 1000,
      tokens: s.tokens,
      batches: s.batches,
      ackHist: s.ackHist,
      ackMax: s.ackMax,
      domNodes: document.getElementsByTagName('*').length,
      textChars: document.querySelector('[data-testid="messages"]')?.textContent?.length ?? 0,
      toolCards: document.querySelectorAll('[data-testid="tool-card"]').length,
    }
  })
  const fps = [...r.windows].sort((a, b) => a - b)
  const meanFps = r.windows.reduce((a, b) => a + b, 0) / r.windows.length
  const maxLong = r.longTasks.length ? Math.max(...r.longTasks) : 0
  const result = {
    idleFps,
    seconds: r.seconds,
    tokens: r.tokens,
    tokensPerSec: r.tokens / r.seconds,
    batches: r.batches,
    longTasks: r.longTasks.length,
    longTaskMaxMs: maxLong,
    longTasksOver50: r.longTasks.filter((d) => d >= 50).length,
    longTaskTotalMs: r.longTasks.reduce((a, b) => a + b, 0),
    longTaskAt: r.longTaskAt, // [ms after the first token, duration]
    fpsMean: meanFps,
    fpsP5: percentile(fps, 5),
    fpsMin: fps[0],
    frameGapMaxMs: r.maxGap,
    frameGapsOver34: r.gapsOver34,
    frameGapsOver50: r.gapsOver50,
    ackMeanMs: histMean(r.ackHist),
    ackP95Ms: histPercentile(r.ackHist, 95),
    ackMaxMs: r.ackMax,
    domNodes: r.domNodes,
    textChars: r.textChars,
    toolCards: r.toolCards,
    noLongTaskObserver: r.noLongTaskObserver,
  }
  result.pass = {
    longTasks: !r.noLongTaskObserver && result.longTasksOver50 === 0,
    frameRate: meanFps >= 0.9 * idleFps && result.fpsP5 >= 0.75 * idleFps,
  }
  return result
}

async function sample(page, cdp, browserCdp, startedAt, pauses) {
  const from = await page.evaluate(() => performance.now())
  // Two collections: the second frees what the finalizers of the first released.
  await cdp.send('HeapProfiler.collectGarbage')
  await cdp.send('HeapProfiler.collectGarbage')
  const { metrics } = await cdp.send('Performance.getMetrics')
  const m = Object.fromEntries(metrics.map((x) => [x.name, x.value]))
  const page_ = await page.evaluate(() => ({
    dom: document.getElementsByTagName('*').length,
    runs: window.__demoStats.runs,
    tokens: window.__demoStats.tokens,
    now: performance.now(),
  }))
  const mem = await rendererMemory(browserCdp)
  const detail = opts.memoryDetail && mem.pid ? await allocatorMemory(browserCdp, mem.pid) : null
  if (opts.snapshots) {
    mkdirSync(opts.snapshots, { recursive: true })
    const chunks = []
    const onChunk = (e) => chunks.push(e.chunk)
    cdp.on('HeapProfiler.addHeapSnapshotChunk', onChunk)
    await cdp.send('HeapProfiler.takeHeapSnapshot', { reportProgress: false })
    cdp.off('HeapProfiler.addHeapSnapshotChunk', onChunk)
    writeFileSync(join(opts.snapshots, `${Math.round((page_.now - startedAt) / 60000)}min.heapsnapshot`), chunks.join(''))
  }
  // The memory dump and the heap snapshot collect garbage too: the pause lasts until they are done.
  pauses.push([from, await page.evaluate(() => performance.now())])
  return {
    atSec: (page_.now - startedAt) / 1000,
    jsHeapUsed: m.JSHeapUsedSize,
    jsHeapTotal: m.JSHeapTotalSize,
    nodes: m.Nodes,
    domElements: page_.dom,
    listeners: m.JSEventListeners,
    rendererPss: mem.pss,
    rendererRss: mem.rss,
    allocators: detail,
    runs: page_.runs,
    tokens: page_.tokens,
  }
}

async function scenarioB(context, base) {
  const page = context.pages()[0] ?? (await context.newPage())
  const seconds = opts.minutes * 60
  const perRun = 3000
  const url = `${base}?prompt=${encodeURIComponent('Build a page that lists items')}&tokens=${perRun}&rate=${opts.rate}&seconds=${seconds}`
  console.log(`B: ${opts.minutes} min of agent turns (${perRun} tokens each) at ${opts.rate} tokens/s…`)
  await page.goto(url)
  const cdp = await context.newCDPSession(page)
  await cdp.send('Performance.enable')
  const browserCdp = await context.browser().newBrowserCDPSession()
  await page.waitForFunction(() => window.__demoStats?.streamStartedAt > 0, null, { timeout: 30000, polling: 50 })
  const startedAt = await page.evaluate(() => window.__demoStats.streamStartedAt)
  await page.evaluate(() => window.__bench.start())
  const samples = []
  const pauses = [] // page-time spans of the samples: their forced GCs are no long task of the window
  for (let minute = 1; minute <= opts.minutes; minute++) {
    const now = await page.evaluate(() => performance.now())
    await sleep(Math.max(0, startedAt + minute * 60000 - now))
    const s = await sample(page, cdp, browserCdp, startedAt, pauses)
    samples.push(s)
    console.log(
      `  ${minute} min: JS heap ${mb(s.jsHeapUsed)} MB, ${s.domElements} elements, renderer PSS ${mb(s.rendererPss)} MB, ${s.runs} runs`,
    )
  }
  await page.waitForFunction(() => window.__demoDone === true, null, { timeout: 120000, polling: 250 })
  const r = await page.evaluate((pauses) => {
    const b = window.__bench
    b.stop()
    const inPause = (t, d) => pauses.some(([from, to]) => t < to + 5 && t + d > from - 5)
    return {
      longTasks: b.longTasks.filter(([t, d]) => t >= b.startedAt && !inPause(t, d)).map(([, d]) => d),
      windows: b.windows,
      ackHist: window.__demoStats.ackHist,
      ackMax: window.__demoStats.ackMax,
    }
  }, pauses)
  const first = samples[0]
  const last = samples[samples.length - 1]
  const fps = [...r.windows].sort((a, b) => a - b)
  const result = {
    minutes: opts.minutes,
    samples,
    heapRatio: last.jsHeapUsed / first.jsHeapUsed,
    domRatio: last.domElements / first.domElements,
    nodesRatio: last.nodes / first.nodes,
    rendererRatio: last.rendererPss / first.rendererPss,
    longTasks: r.longTasks.length,
    longTaskMaxMs: r.longTasks.length ? Math.max(...r.longTasks) : 0,
    longTasksOver50: r.longTasks.filter((d) => d >= 50).length,
    fpsMean: r.windows.reduce((a, b) => a + b, 0) / r.windows.length,
    fpsP5: percentile(fps, 5),
    ackMeanMs: histMean(r.ackHist),
    ackP95Ms: histPercentile(r.ackHist, 95),
    ackMaxMs: r.ackMax,
  }
  result.pass = { memory: result.heapRatio <= 1.2 && result.domRatio <= 1.2 && result.rendererRatio <= 1.2 }
  return result
}

// ---- main ---------------------------------------------------------------------------------

function printA(a) {
  console.log(`\nScenario A — ${a.tokens} tokens streamed in ${f1(a.seconds)} s (${f1(a.tokensPerSec)} tokens/s, ${a.batches} batches)`)
  console.log(
    table(
      [
        ['long tasks during the stream', a.longTasks, ''],
        ['longest long task (ms)', f1(a.longTaskMaxMs), '< 50'],
        ['long tasks ≥ 50 ms', a.longTasksOver50, '0'],
        ['time in long tasks (ms)', f1(a.longTaskTotalMs), ''],
        ['frame rate, idle window (fps)', f1(a.idleFps), ''],
        ['frame rate, mean of 1-s windows (fps)', f1(a.fpsMean), `≥ ${f1(0.9 * a.idleFps)}`],
        ['frame rate, p5 of 1-s windows (fps)', f1(a.fpsP5), ''],
        ['frame rate, worst 1-s window (fps)', f1(a.fpsMin), ''],
        ['longest frame interval (ms)', f1(a.frameGapMaxMs), ''],
        ['frame intervals > 34 ms / > 50 ms', `${a.frameGapsOver34} / ${a.frameGapsOver50}`, ''],
        ['batch → paint ack, mean (ms)', f1(a.ackMeanMs), ''],
        ['batch → paint ack, p95 (ms)', f1(a.ackP95Ms), ''],
        ['batch → paint ack, max (ms)', f1(a.ackMaxMs), ''],
        ['DOM elements at the end', a.domNodes, ''],
      ],
      ['measure', 'value', 'target'],
    ),
  )
  console.log(`long tasks: ${a.pass.longTasks ? 'PASS' : 'MISS'} · frame rate: ${a.pass.frameRate ? 'PASS' : 'MISS'}`)
  if (a.noLongTaskObserver) console.log('(this Chromium reports no long tasks: the long-task figures are empty)')
}

function printB(b) {
  console.log(`\nScenario B — ${b.minutes} min of streaming in one chat (samples after a forced GC)`)
  console.log(
    table(
      b.samples.map((s) => [
        `${f1(s.atSec / 60)} min`,
        s.runs,
        s.tokens,
        mb(s.jsHeapUsed),
        s.domElements,
        s.nodes,
        s.listeners,
        mb(s.rendererPss),
      ]),
      ['at', 'runs', 'tokens', 'JS heap used (MB)', 'DOM elements', 'nodes (CDP)', 'listeners', 'renderer PSS (MB)'],
    ),
  )
  console.log(
    table(
      [
        ['JS heap used', f1(b.heapRatio * 100) + ' %', '≤ 120 %'],
        ['DOM elements', f1(b.domRatio * 100) + ' %', '≤ 120 %'],
        ['nodes (CDP, incl. text)', f1(b.nodesRatio * 100) + ' %', ''],
        ['renderer PSS', f1(b.rendererRatio * 100) + ' %', '≤ 120 %'],
      ],
      [`last sample / 1 min`, 'ratio', 'target'],
    ),
  )
  if (b.samples[0].allocators) {
    console.log('renderer memory by allocator (MB; Blink heap: resident / committed / live)')
    console.log(
      table(
        b.samples.map(({ atSec, allocators: a }) => [
          `${f1(atSec / 60)} min`,
          `${mb(a.blinkResident)} / ${mb(a.blinkCommitted)} / ${mb(a.blinkLive)}`,
          mb(a.malloc),
          mb(a.partitionAlloc),
          mb(a.v8),
          mb(a.tiles),
        ]),
        ['at', 'Blink heap', 'malloc', 'PartitionAlloc', 'V8', 'tiles (cc)'],
      ),
    )
  }
  console.log(
    `during B: ${b.longTasks} long tasks, longest ${f1(b.longTaskMaxMs)} ms, ${b.longTasksOver50} ≥ 50 ms (outside the samples' forced GCs); ` +
      `frame rate mean ${f1(b.fpsMean)}, p5 ${f1(b.fpsP5)}; batch → paint ack mean ${f1(b.ackMeanMs)} ms, p95 ${f1(b.ackP95Ms)} ms`,
  )
  console.log(`memory: ${b.pass.memory ? 'PASS' : 'MISS'}`)
}

async function main() {
  if (!existsSync(opts.chromium)) {
    fail(`Chromium is missing at ${opts.chromium}. Install it with: sudo apt-get install -y chromium (or set CHROMIUM=/path).`)
  }
  if (opts.build || !existsSync(join(dist, 'index.html'))) build()
  const server = await serve()
  const base = `http://127.0.0.1:${server.address().port}/`
  const results = { chromium: spawnSync(opts.chromium, ['--version'], { encoding: 'utf8' }).stdout.trim(), options: opts }
  console.log(`${results.chromium}; serving ${dist} at ${base}`)
  const run = async (name, fn) => {
    const dir = mkdtempSync(join(tmpdir(), 'prototyper-bench-'))
    const context = await launch(dir)
    try {
      await context.addInitScript(instrument)
      return await fn(context, base, dir)
    } finally {
      await context.close()
      rmSync(dir, { recursive: true, force: true })
    }
  }
  try {
    if (opts.scenario !== 'b') {
      results.a = await run('a', scenarioA)
      printA(results.a)
    }
    if (opts.scenario !== 'a') {
      results.b = await run('b', scenarioB)
      printB(results.b)
    }
  } finally {
    server.close()
  }
  if (opts.json) writeFileSync(opts.json, JSON.stringify(results, null, 2))
  const missed = [results.a?.pass, results.b?.pass].filter(Boolean).some((p) => Object.values(p).some((v) => !v))
  if (missed && opts.check) process.exit(1)
}

main().catch((err) => {
  console.error(err)
  process.exit(1)
})
