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
