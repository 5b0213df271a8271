import { describe, expect, it } from 'vitest'
import { rate, tokenCount, tokenCounts, tokenRate } from './tokenCount'

describe('a count of tokens', () => {
  // the same cases as model/vocab/tokens_test.go: the window and the Go sentences write a count alike
  it.each([
    [0, '0'], [950, '950'], [1023, '1023'], [1024, '1K'], [6246, '6.1K'], [8192, '8K'], [10188, '9.9K'], [10239, '10K'],
    [12345, '12K'], [16384, '16K'], [32768, '32K'], [40960, '40K'], [131072, '128K'],
  ])('%i is written %s', (n, want) => {
    expect(tokenCount(n)).toBe(want)
  })
})

describe('two counts one sentence compares', () => {
  // the same cases as model/vocab/tokens_test.go
  it.each([
    [12288, 12083, '12,288', '12,083'], [6246, 6200, '6,246', '6,200'], [1100000, 1099999, '1,100,000', '1,099,999'],
    [12345, 16384, '12K', '16K'], [950, 900, '950', '900'], [16384, 16384, '16K', '16K'],
  ])('%i and %i are written %s and %s', (a, b, wantA, wantB) => {
    expect(tokenCounts(a, b)).toEqual([wantA, wantB])
  })
})

describe('a speed', () => {
  // the same cases as model/vocab/tokens_test.go: the window and the Go sentences write a speed alike
  it.each([
    [0, '0'], [4.24, '4.2'], [5, '5'], [9.94, '9.9'], [9.96, '10'], [14.4, '14'], [850.3, '850'],
    [29207.4, '29,207'], [1234567.8, '1,234,568'],
  ])('%f tokens a second is written %s', (n, want) => {
    expect(rate(n)).toBe(want)
  })

  it('is written with its unit', () => {
    expect(tokenRate(29207)).toBe('29,207 tok/s')
  })
})
