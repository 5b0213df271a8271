import { describe, expect, it } from 'vitest'
import { progressText } from './ToolCard'

describe('progressText', () => {
  it('says what an MCP server reported of a running call', () => {
    expect(progressText({ progress: 2, total: 5, message: 'Indexing' })).toBe('Indexing · 2/5')
    expect(progressText({ progress: 3 })).toBe('3')
    expect(progressText({ message: 'Working' })).toBe('Working')
  })
  it('says nothing of an update it cannot read', () => {
    expect(progressText(null)).toBe('')
    expect(progressText('half')).toBe('')
    expect(progressText({ other: 1 })).toBe('')
  })
})
