// Combines boolean SQL expressions. Every result can stand as an operand of AND (an OR is
// parenthesized); negation is NULL-safe, so a NULL operand counts as "does not match".

export function joinAnd(parts: string[]): string {
  if (parts.length === 0) return 'TRUE'
  return parts.length === 1 ? parts[0] : parts.map(p => `(${p})`).join(' AND ')
}

export function joinOr(parts: string[]): string {
  if (parts.length === 0) return 'FALSE'
  return parts.length === 1 ? parts[0] : `(${parts.map(p => `(${p})`).join(' OR ')})`
}

export function negate(expr: string): string {
  return `(${expr}) IS NOT TRUE`
}
