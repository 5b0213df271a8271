#!/usr/bin/env node
// Compares two V8 heap snapshots (from `stream-bench.mjs --snapshots=DIR`): the retained kinds
// of objects whose total size grew most between them, by constructor or string/array kind.
//   node bench/heap-diff.mjs before.heapsnapshot after.heapsnapshot [rows]

import { readFileSync } from 'node:fs'

function summary(file) {
  const snap = JSON.parse(readFileSync(file, 'utf8'))
  const meta = snap.snapshot.meta
  const fields = meta.node_fields
  const types = meta.node_types[0]
  const width = fields.length
  const iType = fields.indexOf('type')
  const iName = fields.indexOf('name')
  const iSize = fields.indexOf('self_size')
  const byKind = new Map()
  const nodes = snap.nodes
  for (let i = 0; i < nodes.length; i += width) {
    const type = types[nodes[i + iType]]
    const name = type === 'object' || type === 'native' || type === 'closure' ? snap.strings[nodes[i + iName]] : `(${type})`
    const key = `${type}:${name}`
    const e = byKind.get(key) ?? { count: 0, size: 0 }
    e.count++
    e.size += nodes[i + iSize]
    byKind.set(key, e)
  }
  return byKind
}

const [a, b, rows = '25'] = process.argv.slice(2)
if (!a || !b) {
  console.error('usage: node bench/heap-diff.mjs before.heapsnapshot after.heapsnapshot [rows]')
  process.exit(2)
}
const before = summary(a)
const after = summary(b)
const keys = new Set([...before.keys(), ...after.keys()])
const diff = [...keys]
  .map((k) => {
    const x = before.get(k) ?? { count: 0, size: 0 }
    const y = after.get(k) ?? { count: 0, size: 0 }
    return { k, dCount: y.count - x.count, dSize: y.size - x.size, size: y.size }
  })
  .sort((p, q) => q.dSize - p.dSize)
  .slice(0, Number(rows))
const total = (m) => [...m.values()].reduce((s, e) => s + e.size, 0)
console.log(`total self size: ${(total(before) / 1048576).toFixed(2)} MB → ${(total(after) / 1048576).toFixed(2)} MB`)
console.log('Δ size (KB) | Δ count | size after (KB) | kind')
for (const d of diff) console.log(`${(d.dSize / 1024).toFixed(1).padStart(11)} | ${String(d.dCount).padStart(7)} | ${(d.size / 1024).toFixed(1).padStart(15)} | ${d.k.slice(0, 90)}`)
