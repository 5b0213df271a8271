// How the window writes sizes and paths.

/** A size in bytes as a person reads it: "2.5 GB", "810 MB". */
export function formatBytes(n: number): string {
  if (!n) return '0 B'
  const units = ['B', 'KB', 'MB', 'GB', 'TB']
  const i = Math.min(units.length - 1, Math.floor(Math.log(n) / Math.log(1000)))
  return `${(n / 1000 ** i).toFixed(i >= 3 ? 1 : 0)} ${units[i]}`
}

/** A model's sizes as the model menu labels them: "8B parameters · 5.2 GB on disk". */
export function modelSizeText(m: { parameterSize?: string; size?: number }): string {
  const parts = [m.parameterSize ? `${m.parameterSize} parameters` : '', m.size ? `${formatBytes(m.size)} on disk` : '']
  return parts.filter(Boolean).join(' · ')
}

/** The last name of a path: the folder or file it names. */
export function baseName(path: string): string {
  const parts = path.split(/[\\/]/).filter(Boolean)
  return parts[parts.length - 1] ?? path
}
