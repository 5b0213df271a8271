#!/usr/bin/env node
// Fails when the production bundle (dist/, what the desktop app embeds) holds the in-memory demo
// or fake backend: `npm run build` runs it after `vite build`. The markers are names that only
// src/demo.ts, src/fakeBackend.ts and src/browserDemo.ts use.
//
// Usage (from frontend/): node scripts/check-bundle.mjs [DIR]   (default dist)

import { readdirSync, readFileSync, statSync } from 'node:fs'
import { join, resolve } from 'node:path'

const markers = ['__demoStats', '__demoDone', 'recordCalls', 'browserDemo']
const dir = resolve(process.argv[2] ?? 'dist')

function files(d) {
  return readdirSync(d).flatMap((name) => {
    const p = join(d, name)
    return statSync(p).isDirectory() ? files(p) : [p]
  })
}

const found = []
for (const file of files(dir)) {
  if (!/\.(js|html|css|map)$/.test(file)) continue
  const text = readFileSync(file, 'utf8')
  for (const m of markers) if (text.includes(m) || file.includes(m)) found.push(`${file}: ${m}`)
}
if (found.length > 0) {
  console.error('check-bundle: the production bundle holds demo or fake-backend code:')
  for (const f of found) console.error(`  - ${f}`)
  process.exit(1)
}
console.log(`check-bundle: ${dir} holds no demo or fake-backend code.`)
