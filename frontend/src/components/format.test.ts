import { describe, expect, it } from 'vitest'
import { modelSizeText } from './format'

describe('modelSizeText', () => {
  it('labels each of a model’s sizes, so that two numbers side by side are never left to guess', () => {
    expect(modelSizeText({ parameterSize: '525K', size: 2e6 })).toBe('525K parameters · 2 MB on disk')
    expect(modelSizeText({ parameterSize: '', size: 5.2e9 })).toBe('5.2 GB on disk')
    expect(modelSizeText({ parameterSize: '8B', size: 0 })).toBe('8B parameters')
  })
})
