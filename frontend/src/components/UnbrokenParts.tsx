import { Fragment } from 'react'

/**
 * Figures said in a line, "first token 57 ms · prompt 10,153 tok/s": a narrow window breaks the
 * line between them, never inside one, so that a number stays with its unit and its name.
 */
export function UnbrokenParts({ parts, between = ' · ' }: { parts: string[]; between?: string }) {
  return parts.map((p, i) => (
    <Fragment key={i}>
      {i > 0 && between}
      <span className="unbroken">{p}</span>
    </Fragment>
  ))
}
