// How the window writes a count of tokens, wherever one is shown.

/**
 * A count of tokens as every label and sentence writes it: "950", "6.1K", "16K", "128K". K is
 * 1,024 tokens, as a model's context is sized, so that a context of 32768 reads 32K wherever it
 * is said; the Go sentences write the same (vocab.TokenCount).
 */
export function tokenCount(n: number): string {
  const whole = Math.round(n)
  if (whole < 1024) return String(whole)
  const k = whole / 1024
  const tenths = Math.round(k * 10) / 10
  return tenths < 10 ? `${tenths}K` : `${Math.round(k)}K`
}

/**
 * Two counts one sentence compares, as tokenCount writes them, unless they would read the
 * same: then both exactly, with thousands separators ("12,288" and "12,083"), so that no
 * sentence refuses a message of 12K for a room of 12K. The Go sentences write the same
 * (vocab.TokenCounts).
 */
export function tokenCounts(a: number, b: number): [string, string] {
  const [ka, kb] = [tokenCount(a), tokenCount(b)]
  if (ka !== kb || Math.round(a) === Math.round(b)) return [ka, kb]
  return [exactCount(a), exactCount(b)]
}

function exactCount(n: number): string {
  return Math.round(n).toLocaleString('en-US')
}

/**
 * A speed in tokens per second as every label and sentence writes it: whole tokens with a comma
 * between each group of three digits ("29,207", "850"), and one decimal below 10, where it
 * still tells models apart ("4.2"). The Go side writes the same (vocab.Rate).
 */
export function rate(perSec: number): string {
  const n = Number.isFinite(perSec) && perSec > 0 ? perSec : 0
  const tenths = Math.round(n * 10) / 10
  return tenths < 10 ? String(tenths) : exactCount(n)
}

/** rate with its unit: "29,207 tok/s" (vocab.TokenRate). */
export function tokenRate(perSec: number): string {
  return `${rate(perSec)} tok/s`
}
