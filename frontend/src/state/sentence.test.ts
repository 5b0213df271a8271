import { describe, expect, it } from 'vitest'
import { asSentence } from './sentence'

describe('asSentence', () => {
  it('capitalises a Go error that starts with a plain word', () => {
    expect(asSentence('nothing to undo: no file the agent changed is left')).toBe('Nothing to undo: no file the agent changed is left')
    expect(asSentence('model "x" is not on the Ollama server')).toBe('Model "x" is not on the Ollama server')
  })

  it('leaves a name that starts the sentence as it is spelled', () => {
    expect(asSentence('build/big.bin is gone')).toBe('build/big.bin is gone')
    expect(asSentence('qwen3:4b cannot see images')).toBe('qwen3:4b cannot see images')
    expect(asSentence('index.html changed since')).toBe('index.html changed since')
  })

  it('shows a command in backticks in quotes rather than as raw Markdown', () => {
    expect(asSentence('no ollama program was found: run `make run` from the repository')).toBe(
      'No ollama program was found: run “make run” from the repository',
    )
  })
})
