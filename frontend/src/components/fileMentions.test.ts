import { describe, expect, it } from 'vitest'
import { mentionAt, pickMention } from './fileMentions'

describe('the @word being typed', () => {
  it('is found before the caret at the start of a word only', () => {
    expect(mentionAt('see @src/ap', 11)).toEqual({ start: 4, query: 'src/ap' })
    expect(mentionAt('@', 1)).toEqual({ start: 0, query: '' })
    expect(mentionAt('mail me@example', 15)).toBeNull()
    expect(mentionAt('see @src done', 13)).toBeNull()
  })

  it('is replaced by the path picked', () => {
    expect(pickMention('see @sr and more', 4, 7, 'src/app.ts')).toEqual({ text: 'see @src/app.ts  and more', caret: 16 })
  })
})
