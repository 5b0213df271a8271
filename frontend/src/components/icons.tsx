// Small line icons drawn inline in the current text colour. The window may have no emoji font
// (the desktop webview under a bare X server has only DejaVu), so pictographs like a folder or a
// bin are drawn here instead of typed as characters; text symbols (✓ ✗ ▸ ✕) stay characters.

import type { SVGProps } from 'react'

/** Each icon's drawing: the path data of its strokes on a 16×16 grid (circles and rectangles as arcs and lines). */
const drawings = {
  folder: 'M1.5 4.5v8a1 1 0 0 0 1 1h11a1 1 0 0 0 1-1V6a1 1 0 0 0-1-1H8L6.5 3h-4a1 1 0 0 0-1 1.5z',
  trash: 'M2.5 4h11M6 4V2.5h4V4M3.8 4l.7 9.5h7l.7-9.5M6.5 6.5v5M9.5 6.5v5',
  pencil: 'M10.5 2.5l3 3-8 8H2.5v-3zM9 4l3 3',
  // three sliders: a gear drawn this small reads as a sun
  settings:
    'M2 4h7M12 4h2M2 8h2M7 8h7M2 12h8M13 12h1' +
    'M9 4a1.5 1.5 0 1 0 3 0a1.5 1.5 0 1 0-3 0M4 8a1.5 1.5 0 1 0 3 0a1.5 1.5 0 1 0-3 0M10 12a1.5 1.5 0 1 0 3 0a1.5 1.5 0 1 0-3 0',
  copy:
    'M6.5 5.5h6a1 1 0 0 1 1 1v6a1 1 0 0 1-1 1h-6a1 1 0 0 1-1-1v-6a1 1 0 0 1 1-1z' +
    'M10.5 5.5v-2a1 1 0 0 0-1-1h-6a1 1 0 0 0-1 1v6a1 1 0 0 0 1 1h2',
  regenerate: 'M13 8a5 5 0 1 1-1.5-3.6M13 2.5v3h-3',
  search: 'M2.5 7a4.5 4.5 0 1 0 9 0a4.5 4.5 0 1 0-9 0M10.5 10.5l3.5 3.5',
  image:
    'M2.5 2.5h11a1 1 0 0 1 1 1v9a1 1 0 0 1-1 1h-11a1 1 0 0 1-1-1v-9a1 1 0 0 1 1-1z' +
    'M4.3 6a1.2 1.2 0 1 0 2.4 0a1.2 1.2 0 1 0-2.4 0M2 12l4-4 3 3 2-2 3.5 3.5',
  info: 'M1.5 8a6.5 6.5 0 1 0 13 0a6.5 6.5 0 1 0-13 0M8 7.2v4.3M8 4.7v.1',
} as const

export type IconName = keyof typeof drawings

/** The icon name, size pixels square (16 unless given); other attributes go on the svg. */
export function Icon({ name, size = 16, ...rest }: SVGProps<SVGSVGElement> & { name: IconName; size?: number }) {
  return (
    <svg
      className="icon"
      width={size}
      height={size}
      viewBox="0 0 16 16"
      fill="none"
      stroke="currentColor"
      strokeWidth={1.4}
      strokeLinecap="round"
      strokeLinejoin="round"
      aria-hidden="true"
      focusable="false"
      {...rest}
    >
      <path d={drawings[name]} />
    </svg>
  )
}
