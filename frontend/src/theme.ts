// The window's theme: the user's choice in the settings (system, light or dark), applied as
// data-theme="light|dark" on the root element, which the style sheet reads. "system" follows
// the desktop's preference as it changes.

import { useEffect } from 'react'
import type { Theme } from './backend'

const darkQuery = '(prefers-color-scheme: dark)'

/** Light or dark, for a theme choice and whether the system prefers dark. */
export function resolveTheme(theme: Theme | undefined, systemDark: boolean): 'light' | 'dark' {
  if (theme === 'light' || theme === 'dark') return theme
  return systemDark ? 'dark' : 'light'
}

/** Applies the theme to the document, following the system while the choice is "system". */
export function useTheme(theme: Theme | undefined): void {
  useEffect(() => {
    const media = typeof window.matchMedia === 'function' ? window.matchMedia(darkQuery) : null
    const apply = () => {
      document.documentElement.dataset.theme = resolveTheme(theme, media?.matches ?? false)
    }
    apply()
    media?.addEventListener?.('change', apply)
    return () => media?.removeEventListener?.('change', apply)
  }, [theme])
}
