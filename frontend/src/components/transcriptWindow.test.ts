import { describe, expect, it } from 'vitest'
import { entriesInBand, entryGap, entryTop, noEntries, spacerHeight } from './transcriptWindow'

describe('the transcript window', () => {
  const heights = [100, 200, 100, 300]
  // tops: 0, 110, 320, 430; bottoms: 100, 310, 420, 730

  it('renders the entries that meet the band, from the first whose bottom is below its top', () => {
    expect(entriesInBand(heights, 150, 330)).toEqual({ first: 1, last: 3 })
    expect(entriesInBand(heights, 0, 0)).toEqual({ first: 0, last: 1 })
  })

  it('renders none when the band is below every entry', () => {
    expect(entriesInBand(heights, 800, 1200)).toEqual(noEntries)
    expect(entriesInBand([], 0, 100)).toEqual(noEntries)
  })

  it('makes a spacer as high as the entries it stands for and the gaps between them', () => {
    expect(spacerHeight(heights, 0, 2)).toBe(300 + entryGap)
    expect(spacerHeight(heights, 1, 1)).toBe(0)
    // laid out, the entry after the spacer is where it would be after the entries
    expect(spacerHeight(heights, 0, 3) + entryGap).toBe(entryTop(heights, 3))
  })
})
