/**
 * Rows as CSV lines as RFC 4180 writes them, each ending in CRLF: pieces of one file concatenate into
 * the whole. A field holding a comma, a double quote, CR or LF is enclosed in double quotes and its
 * quotes doubled; `null`/`undefined` are empty fields; objects and arrays are written as their JSON.
 */
export function csvLines(rows: readonly (readonly unknown[])[]): string {
  return rows.map((row) => `${row.map(csvField).join(',')}\r\n`).join('')
}

export function csvField(value: unknown): string {
  const text = fieldText(value)
  return /[",\r\n]/.test(text) ? `"${text.replaceAll('"', '""')}"` : text
}

function fieldText(value: unknown): string {
  if (value === null || value === undefined) return ''
  if (typeof value === 'string') return value
  if (typeof value === 'number' || typeof value === 'boolean' || typeof value === 'bigint') return String(value)
  return JSON.stringify(value)
}
