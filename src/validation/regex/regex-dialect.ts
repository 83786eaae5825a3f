// The regular-expression dialect every engine accepts: a MongoDB (PCRE) pattern and its
// options, checked and translated into a PostgreSQL ARE pattern with embedded options;
// syntax the two dialects do not share is a client error. MongoDB runs the original.
import { QuireError } from '../../errors.ts'
import { checkRegexCost, skipExtendedSpace } from './regex-cost.ts'

export const MAX_REGEX_LENGTH = 512
/** ARE's largest repetition count ({n,m}). */
const MAX_REPEAT = 255
const POSIX_CLASSES = new Set([
  'alnum',
  'alpha',
  'blank',
  'cntrl',
  'digit',
  'graph',
  'lower',
  'print',
  'punct',
  'space',
  'upper',
  'xdigit',
  'word'
])

export interface RegexSpec {
  pattern: string
  flags: string
}

interface Mode {
  options: string
  dotAll: boolean
  extended: boolean
}

interface Scan {
  src: string
  pos: number
  out: string
  mode: Mode
  canQuantify: boolean
  /** One entry per open group: true for a lookaround. */
  open: boolean[]
}

function invalid(message: string): QuireError {
  return new QuireError('INVALID_REGEX', message)
}

/** Reads a $regex value (string or RegExp) and its $options (which win over the RegExp's flags). */
export function readRegex(value: unknown, options?: unknown): RegexSpec {
  if (options !== undefined && typeof options !== 'string') throw invalid('$options must be a string')
  if (value instanceof RegExp) return { pattern: value.source, flags: options ?? value.flags.replace(/[gyd]/g, '') }
  if (typeof value === 'string') return { pattern: value, flags: options ?? '' }
  throw invalid('$regex needs a string or a regular expression')
}

/**
 * The ARE pattern for a PCRE pattern and flags (i, m, s, x). Mongo's default (`.` stops at
 * a newline, ^ and $ anchor the whole string) is ARE option p; m gives n, s gives s, m+s gives w.
 * Patterns whose matching cost cannot be bounded (checkRegexCost) are refused first.
 */
export function compileRegex({ pattern, flags }: RegexSpec): string {
  if (pattern.length > MAX_REGEX_LENGTH)
    throw invalid(`Regular expressions are limited to ${MAX_REGEX_LENGTH} characters`)
  const mode = readFlags(flags)
  checkRegexCost(pattern, flags)
  const scan: Scan = { src: pattern, pos: 0, out: '', mode, canQuantify: false, open: [] }
  while (scan.pos < pattern.length) translateToken(scan)
  if (scan.open.length > 0) throw invalid('Unbalanced parenthesis in regular expression')
  return `(?${mode.options})${scan.out}`
}

function readFlags(flags: string): Mode {
  for (const flag of flags) {
    if (!'imsx'.includes(flag)) throw invalid(`Unsupported regular expression option: ${flag}`)
  }
  const multiline = flags.includes('m')
  const dotAll = flags.includes('s')
  const base = multiline ? (dotAll ? 'w' : 'n') : dotAll ? 's' : 'p'
  return { options: base + (flags.includes('i') ? 'i' : ''), dotAll, extended: flags.includes('x') }
}

function emit(scan: Scan, text: string, consumed: number, quantifiable: boolean): void {
  scan.out += text
  scan.pos += consumed
  scan.canQuantify = quantifiable
}

function translateToken(scan: Scan): void {
  const c = scan.src[scan.pos]
  if (scan.mode.extended && skipExtendedSpace(scan, c)) return
  switch (c) {
    case '\\':
      return translateEscape(scan)
    case '[':
      return translateBracket(scan)
    case '(':
      return openGroup(scan)
    case ')':
      return closeGroup(scan)
    case '*':
    case '+':
    case '?':
      return translateQuantifier(scan, c, 1)
    case '{':
      return translateBrace(scan)
    case '|':
    case '^':
    case '$':
      return emit(scan, c, 1, false)
    default:
      return emit(scan, c, 1, true)
  }
}

function translateQuantifier(scan: Scan, text: string, consumed: number): void {
  if (!scan.canQuantify) throw invalid('Nothing to repeat in regular expression')
  const next = scan.src[scan.pos + consumed]
  if (next === '+') throw invalid('Possessive quantifiers are not supported')
  const lazy = next === '?' ? '?' : ''
  emit(scan, text + lazy, consumed + lazy.length, false)
}

/** {n}, {n,} and {n,m} are bounds; any other brace is a literal, as in PCRE. */
function translateBrace(scan: Scan): void {
  const bound = /^\{(\d+)(,(\d*))?\}/.exec(scan.src.slice(scan.pos))
  if (!bound) return emit(scan, '\\{', 1, true)
  const min = Number(bound[1])
  const max = bound[3] ? Number(bound[3]) : min
  if (min > MAX_REPEAT || max > MAX_REPEAT) throw invalid(`Repetition counts above ${MAX_REPEAT} are not supported`)
  if (min > max) throw invalid('Invalid repetition range in regular expression')
  translateQuantifier(scan, bound[0], bound[0].length)
}

function translateEscape(scan: Scan): void {
  const c = scan.src[scan.pos + 1]
  if (c === undefined) throw invalid('Regular expression ends with a backslash')
  if ('dDwWsSnrtfv'.includes(c)) return emit(scan, '\\' + c, 2, true)
  const assertion = { b: '\\y', B: '\\Y', A: '\\A', z: '\\Z' }[c]
  if (assertion) return emit(scan, assertion, 2, false)
  const hex = /^x([0-9a-fA-F]{2})/.exec(scan.src.slice(scan.pos + 1))
  if (hex) return emit(scan, `\\u00${hex[1]}`, 4, true)
  if (/[A-Za-z0-9]/.test(c)) throw invalid(`Unsupported escape in regular expression: \\${c}`)
  emit(scan, escapeLiteral(c), 2, true)
}

/** An escaped punctuation character stays escaped; other characters need no escape in ARE. */
function escapeLiteral(c: string): string {
  return /[!-/:-@[-`{-~]/.test(c) ? '\\' + c : c
}

function openGroup(scan: Scan): void {
  const opener = /^\((\?(?::|=|!|<=|<!))?/.exec(scan.src.slice(scan.pos))?.[0] ?? '('
  if (opener === '(' && scan.src[scan.pos + 1] === '?')
    throw invalid('Unsupported group syntax in regular expression (named groups, inline options, atomic groups)')
  scan.open.push(opener.length > 3 || opener === '(?=' || opener === '(?!')
  emit(scan, opener, opener.length, false)
}

function closeGroup(scan: Scan): void {
  if (scan.open.length === 0) throw invalid('Unbalanced parenthesis in regular expression')
  const lookaround = scan.open.pop() === true
  emit(scan, ')', 1, !lookaround)
}

interface ClassItem {
  text: string
  code?: number
  length: number
  newline: boolean
}

/**
 * A bracket expression. ARE's newline-sensitive modes (p, n) keep a negated class from matching
 * a newline, which PCRE's would match: such a class gets an explicit newline alternative.
 */
function translateBracket(scan: Scan): void {
  const src = scan.src
  let i = scan.pos + 1
  const negated = src[i] === '^'
  if (negated) i++
  let body = ''
  let newline = false
  for (let first = true; src[i] !== ']' || first; first = false) {
    const lo = readClassItem(src, i)
    i += lo.length
    if (src[i] === '-' && src[i + 1] !== ']' && src[i + 1] !== undefined && lo.code !== undefined) {
      const hi = readClassItem(src, i + 1)
      if (hi.code === undefined || hi.code < lo.code) throw invalid('Invalid range in character class')
      newline ||= lo.code <= 10 && hi.code >= 10
      body += `${lo.text}-${hi.text}`
      i += 1 + hi.length
    } else {
      newline ||= lo.newline
      body += lo.text
    }
  }
  const bracket = `[${negated ? '^' : ''}${body}]`
  const text = negated && !scan.mode.dotAll && !newline ? `(?:${bracket}|\\n)` : bracket
  emit(scan, text, i + 1 - scan.pos, true)
}

function readClassItem(src: string, i: number): ClassItem {
  const code = src.codePointAt(i)
  if (code === undefined) throw invalid('Unterminated character class in regular expression')
  const c = String.fromCodePoint(code)
  if (c === '[') return readPosixClass(src, i)
  if (c === '-') return { text: '\\-', code, length: 1, newline: false }
  if (c !== '\\') return { text: c, code, length: c.length, newline: c === '\n' }
  const e = src[i + 1]
  if (e === undefined) throw invalid('Regular expression ends with a backslash')
  if ('dws'.includes(e)) return { text: '\\' + e, length: 2, newline: e === 's' }
  const control = { n: 10, r: 13, t: 9, f: 12, v: 11 }[e]
  if (control !== undefined) return { text: '\\' + e, code: control, length: 2, newline: control === 10 }
  const hex = /^x([0-9a-fA-F]{2})/.exec(src.slice(i + 1))
  if (hex)
    return {
      text: `\\u00${hex[1]}`,
      code: parseInt(hex[1], 16),
      length: 4,
      newline: hex[1] === '0a' || hex[1] === '0A'
    }
  if (/[A-Za-z0-9]/.test(e)) throw invalid(`Unsupported escape in character class: \\${e}`)
  return { text: escapeLiteral(e), code: e.charCodeAt(0), length: 2, newline: false }
}

function readPosixClass(src: string, i: number): ClassItem {
  const posix = /^\[:([a-z]+):\]/.exec(src.slice(i))
  if (posix) {
    if (!POSIX_CLASSES.has(posix[1])) throw invalid(`Unknown character class [:${posix[1]}:]`)
    return { text: posix[0], length: posix[0].length, newline: posix[1] === 'space' || posix[1] === 'cntrl' }
  }
  if (/^\[[.=:]/.test(src.slice(i))) throw invalid('Collating elements and negated POSIX classes are not supported')
  return { text: '[', code: 91, length: 1, newline: false }
}
