import { useEffect } from 'react'
import { matches, settingsShortcut } from './shortcuts'
import { modalDialogOpen } from './typing'

/** Alt+S opens the settings from anywhere in the window (unless a dialog is open). */
export function useSettingsShortcut(open: () => void): void {
  useEffect(() => {
    const onKeyDown = (e: KeyboardEvent) => {
      if (!matches(e, settingsShortcut) || modalDialogOpen()) return
      e.preventDefault()
      open()
    }
    window.addEventListener('keydown', onKeyDown)
    return () => window.removeEventListener('keydown', onKeyDown)
  }, [open])
}
