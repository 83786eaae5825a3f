// Finds, in a JXP model file's text (TypeScript or JavaScript), what the converter reads: the
// schema's field and option objects (`new JXPSchema({...}, {...})` or `new Schema(...)`), the
// Mongoose model name, hooks (`.pre`/`.post`), statics and other schema calls, as source text.

export interface SchemaSource {
  fields: string
  options?: string
  modelName?: string
  hooks: Array<{ when: 'pre' | 'post'; event: string; source: string }>
  statics: Array<{ name: string; source: string }>
  /** Other calls on the schema (plugins, virtuals, indexes, validators): for the report. */
  others: string[]
}

/** The balanced {...} or [...] starting at `start`, strings and comments skipped. */
function balanced(text: string, start: number): string {
  const open = text[start]
  const close = open === '{' ? '}' : open === '[' ? ']' : ')'
  let depth = 0
  for (let i = start; i < text.length; i++) {
    const c = text[i]
    if (c === '"' || c === "'" || c === '`') {
      for (i++; i < text.length && text[i] !== c; i++) if (text[i] === '\\') i++
    } else if (c === '/' && text[i + 1] === '/') {
      i = text.indexOf('\n', i) === -1 ? text.length : text.indexOf('\n', i)
    } else if (c === '/' && text[i + 1] === '*') {
      i = text.indexOf('*/', i) + 1
    } else if (c === open || (open === '(' && c === '(')) depth++
    else if (c === close) {
      depth--
      if (depth === 0) return text.slice(start, i + 1)
    }
  }
  throw new Error('unbalanced brackets')
}

/**
 * The source of the statement starting at `start`: a call with its arguments, or an assignment with its function's
 * body.
 */
function statement(text: string, start: number): string {
  const paren = text.indexOf('(', start)
  const eq = text.indexOf('=', start)
  if (paren !== -1 && (eq === -1 || paren < eq)) return text.slice(start, paren) + balanced(text, paren)
  const brace = text.indexOf('{', eq)
  const line = text.indexOf('\n', eq)
  if (brace !== -1 && (line === -1 || brace < line)) return text.slice(start, brace) + balanced(text, brace)
  return text.slice(start, line === -1 ? undefined : line)
}

export function findSchemaSource(text: string): SchemaSource | undefined {
  const created = /new\s+(?:JXPSchema|(?:mongoose\.)?Schema)\s*(?:<[^>]*>)?\s*\(/.exec(text)
  if (!created) return undefined
  let at = text.indexOf('{', created.index)
  const fields = balanced(text, at)
  at += fields.length
  const rest = text.slice(at, at + 20)
  const options = /^\s*,\s*\{/.test(rest) ? balanced(text, text.indexOf('{', at)) : undefined
  const schemaVar = /(\w+)\s*=\s*new\s+(?:JXPSchema|(?:mongoose\.)?Schema)/.exec(text)?.[1]
  const modelName = /\.model\s*(?:<[^>]*>)?\s*\(\s*["'`](\w+)["'`]/.exec(text)?.[1]
  const hooks: SchemaSource['hooks'] = []
  const statics: SchemaSource['statics'] = []
  const others: string[] = []
  if (schemaVar !== undefined) {
    const calls = new RegExp(
      `${schemaVar}\\.(pre|post|statics\\.(\\w+)|methods\\.(\\w+)|plugin|virtual|index|path|set)\\b`,
      'g'
    )
    for (const m of text.matchAll(calls)) {
      const source = statement(text, m.index)
      if (m[1] === 'pre' || m[1] === 'post')
        hooks.push({ when: m[1], event: /\(\s*["'`](\w+)/.exec(source)?.[1] ?? '?', source })
      else if (m[2] !== undefined || m[3] !== undefined) statics.push({ name: (m[2] ?? m[3]) as string, source })
      else others.push(source.split('\n')[0].slice(0, 160))
    }
  }
  return { fields, options, modelName, hooks, statics, others }
}
