import { describe, expect, it } from 'vitest'
import * as keys from './shortcuts'

type Any = { label: string; letter?: string; key?: string; ctrl?: boolean; does?: string }

// Every exported shortcut: an object with a label and the key it is pressed with.
const isShortcut = (v: unknown): v is Any =>
  typeof v === 'object' && v !== null && 'label' in v && ('letter' in v || 'key' in v)
const all: Array<[string, Any]> = []
for (const [name, v] of Object.entries(keys) as Array<[string, unknown]>) if (isShortcut(v)) all.push([name, v])

const combo = (s: Any) => (s.letter ? `alt+${s.letter}` : `ctrl+${s.key}`)

describe('the table of shortcuts', () => {
  it('gives each key to one shortcut only', () => {
    const seen = new Map<string, string>()
    for (const [name, s] of all) {
      const k = combo(s)
      expect(seen.get(k), `${name} and ${seen.get(k)} both use ${k}`).toBeUndefined()
      seen.set(k, name)
    }
    expect(all.length).toBeGreaterThanOrEqual(13)
  })

  it('labels each shortcut with the key it is matched by', () => {
    for (const [name, s] of all) {
      const [mod, k] = s.label.split('+')
      expect(mod, name).toBe(s.letter ? 'Alt' : 'Ctrl')
      expect(k.toLowerCase(), name).toBe(s.letter ?? s.key)
    }
  })

  it('lists every shortcut in the help overlay, with what it does', () => {
    for (const [name, s] of all) {
      expect(keys.helpList, name).toContain(s)
      expect(s.does, name).toBeTruthy()
    }
  })
})
