import { describe, expect, it } from 'vitest'
import { filesAndFolders, pathList, runChangeText, undoneText } from './changeText'

describe('the sentences of a change', () => {
  it('name files and count the folders that hold them apart', () => {
    expect(filesAndFolders(['site', 'site/index.html'])).toEqual({ files: ['site/index.html'], folders: ['site'] })
    expect(runChangeText(['site', 'site/index.html'])).toBe('This run changed site/index.html (and a folder)')
  })

  it('name at most four paths', () => {
    expect(pathList([])).toBe('nothing')
    expect(pathList(['a', 'b'])).toBe('a and b')
    expect(pathList(['a', 'b', 'c', 'd', 'e', 'f'])).toBe('a, b, c and 3 more')
  })

  it('say what an undo put back and removed, and where', () => {
    expect(undoneText(false, { paths: ['a', 'b'], removed: ['b'], elsewhere: ['/old'], inChatFolder: true })).toBe(
      'Undone: a put back; b removed (in the chat’s folder and in /old, its earlier folder).',
    )
  })
})
