// scripts/check-contract.mjs compares src/backend.ts with the types Wails generates from Go. It
// runs on the generated files at build time; here it runs on a cut-down copy with known drift,
// to show that it notices each kind.

import { describe, expect, it } from 'vitest'

// Loaded at run time: the script is plain JavaScript for Node, outside the window's sources.
const script = '../../scripts/check-contract.mjs'
const { checkContract } = (await import(/* @vite-ignore */ script)) as {
  checkContract(files: { models: string; app?: string; backend: string }): string[]
}

// Paths are read from frontend/, where the tests run.
const problems = checkContract({
  models: 'scripts/testdata/models.ts.txt',
  app: 'scripts/testdata/App.d.ts.txt',
  backend: 'src/backend.ts',
})

describe('check-contract', () => {
  it('accepts a Go type whose fields the window has (optional where Go may omit them)', () => {
    expect(problems.filter((p) => p.includes('ChatSummary') || p.includes('Usage'))).toEqual([])
  })

  it('names a Go field missing from the window’s type', () => {
    expect(problems).toContain('store.ToolCallRecord.heldBy is missing from ToolCallRecord in src/backend.ts')
  })

  it('names a window field that Go does not have', () => {
    expect(problems).toContain('StoredMessage.usage in src/backend.ts is not a field of store.Message')
  })

  it('names a field Go may omit that the window requires', () => {
    expect(problems).toContain(
      'store.Message.complete may be omitted by Go (omitempty) but StoredMessage.complete is required in src/backend.ts',
    )
  })

  it('names a Go type paired with no window type', () => {
    expect(problems.some((p) => p.startsWith('main.Checkpoint is a Go type the window receives'))).toBe(true)
  })

  it('names a field typed any because Wails did not find its Go type, and not a time', () => {
    expect(problems.filter((p) => p.includes('is typed any'))).toEqual([
      "agentloop.ChatNote.offer is typed any: Wails' generator did not find its Go type (package store), which only an embedded struct reaches; name it in bindings_on.go",
    ])
  })

  it('compares the bound methods with the ones the window calls', () => {
    expect(problems).toContain('App.Rewind is bound by Go but missing from WailsApp in src/backend.ts')
    expect(problems).toContain('App.Send takes 1 argument in Go but 2 arguments in WailsApp (src/backend.ts)')
    expect(problems).toContain('WailsApp.Decide in src/backend.ts is not a method bound by Go')
    expect(problems.some((p) => p.includes('App.Config'))).toBe(false)
  })
})
