// Bounds what one regular expression may ask of a database's regex engine, before any engine
// sees it: its size once {n,m} repetitions are expanded, its lookarounds, no back references.
import { QuireError } from '../../errors.ts'

/** The most elements (characters, classes) a pattern may hold once its repetitions are expanded. */
export const MAX_REGEX_SIZE = 1000
/** The most lookarounds a pattern may hold once its repetitions are expanded. */
export const MAX_REGEX_LOOKAROUNDS = 10

export interface RegexCost {
  /** Elements once repetitions are expanded: what the engine's automaton grows with. */
  size: number
  lookarounds: number
}

interface Frame {
  done: RegexCost
  branch: RegexCost
  last?: RegexCost
  lookaround: boolean
}

interface Walk {
  src: string
  pos: number
  extended: boolean
  frames: Frame[]
}

const LOOKAROUND = /^\(\?(?:=|!|<=|<!)/
const SPACE = /[ \t\n\r\f\v]/

function refuse(message: string): QuireError {
  return new QuireError('INVALID_REGEX', message)
}

/**
 * The cost of a MongoDB (PCRE) pattern with its flags, or a 400 INVALID_REGEX naming the reason:
 * back references (matching them backtracks: time exponential in the text's length), lookarounds
 * inside lookarounds (polynomial of a high degree), more than MAX_REGEX_LOOKAROUNDS lookarounds,
 * or more than MAX_REGEX_SIZE elements once nested repetitions are multiplied out. Syntax errors
 * are left to the translation; this check never fails on them.
 */
export function checkRegexCost(pattern: string, flags = ''): RegexCost {
  const walk: Walk = { src: pattern, pos: 0, extended: flags.includes('x'), frames: [newFrame(false)] }
  while (walk.pos < pattern.length) step(walk)
  while (walk.frames.length > 1) closeGroup(walk)
  const cost = total(walk.frames[0])
  if (cost.size > MAX_REGEX_SIZE) {
    throw refuse(
      `The regular expression is too large once its repetitions are expanded (more than ${MAX_REGEX_SIZE} ` +
        `elements): nest fewer or smaller {n,m} repetitions`
    )
  }
  if (cost.lookarounds > MAX_REGEX_LOOKAROUNDS) {
    throw refuse(
      `Regular expressions are limited to ${MAX_REGEX_LOOKAROUNDS} lookarounds, counting those inside repetitions`
    )
  }
  return cost
}

function newFrame(lookaround: boolean): Frame {
  return { done: { size: 0, lookarounds: 0 }, branch: { size: 0, lookarounds: 0 }, lookaround }
}

function total(frame: Frame): RegexCost {
  return { size: frame.done.size + frame.branch.size, lookarounds: frame.done.lookarounds + frame.branch.lookarounds }
}

function top(walk: Walk): Frame {
  return walk.frames[walk.frames.length - 1]
}

function append(frame: Frame, cost: RegexCost): void {
  frame.branch.size += cost.size
  frame.branch.lookarounds += cost.lookarounds
  frame.last = cost
}

function step(walk: Walk): void {
  const c = walk.src[walk.pos]
  if (walk.extended && skipExtendedSpace(walk, c)) return
  switch (c) {
    case '\\':
      return readEscape(walk)
    case '[':
      return readBracket(walk)
    case '(':
      return openGroup(walk)
    case ')':
      walk.pos++
      if (walk.frames.length > 1) closeGroup(walk)
      return
    case '|':
      return alternate(walk)
    case '{':
      return readBrace(walk)
    case '*':
    case '+':
    case '?':
      walk.pos++
      top(walk).last = undefined
      return
    default:
      walk.pos++
      append(top(walk), { size: 1, lookarounds: 0 })
  }
}

/** In PCRE's x mode whitespace and # comments outside brackets are dropped: skips one, if `c` starts one. */
export function skipExtendedSpace(cursor: { src: string; pos: number }, c: string): boolean {
  if (SPACE.test(c)) {
    cursor.pos++
    return true
  }
  if (c !== '#') return false
  const end = cursor.src.indexOf('\n', cursor.pos)
  cursor.pos = end === -1 ? cursor.src.length : end + 1
  return true
}

function readEscape(walk: Walk): void {
  const c = walk.src[walk.pos + 1]
  if (c !== undefined && /[1-9]/.test(c)) {
    throw refuse(
      `Back references (\\${c}) are not supported: matching them can take time exponential in the text's length`
    )
  }
  walk.pos += c === 'x' && /^[0-9a-fA-F]{2}/.test(walk.src.slice(walk.pos + 2)) ? 4 : 2
  append(top(walk), { size: 1, lookarounds: 0 })
}

/** A bracket expression is one element: skip to its closing bracket. */
function readBracket(walk: Walk): void {
  const src = walk.src
  let i = walk.pos + 1
  if (src[i] === '^') i++
  if (src[i] === ']') i++
  while (i < src.length && src[i] !== ']') {
    if (src[i] === '\\') i += 2
    else if (src.startsWith('[:', i) && src.indexOf(':]', i + 2) !== -1) i = src.indexOf(':]', i + 2) + 2
    else i++
  }
  walk.pos = i + 1
  append(top(walk), { size: 1, lookarounds: 0 })
}

function openGroup(walk: Walk): void {
  const opener = LOOKAROUND.exec(walk.src.slice(walk.pos))?.[0]
  if (opener && walk.frames.some(frame => frame.lookaround)) {
    throw refuse(
      'Lookarounds inside lookarounds are not supported: their matching time grows with a high power of ' +
        "the text's length"
    )
  }
  walk.pos += opener?.length ?? (walk.src.startsWith('(?:', walk.pos) ? 3 : 1)
  walk.frames.push(newFrame(opener !== undefined))
}

function closeGroup(walk: Walk): void {
  const frame = walk.frames.pop()!
  const cost = total(frame)
  if (frame.lookaround) cost.lookarounds++
  append(top(walk), cost)
}

function alternate(walk: Walk): void {
  const frame = top(walk)
  walk.pos++
  frame.done = total(frame)
  frame.branch = { size: 0, lookarounds: 0 }
  frame.last = undefined
}

/** {n}, {n,} and {n,m} repeat the element before them: the automaton holds that many copies. */
function readBrace(walk: Walk): void {
  const bound = /^\{(\d+)(,(\d*))?\}/.exec(walk.src.slice(walk.pos))
  const frame = top(walk)
  if (!bound) {
    walk.pos++
    append(frame, { size: 1, lookarounds: 0 })
    return
  }
  walk.pos += bound[0].length
  const min = Number(bound[1])
  const copies = bound[2] === undefined ? min : bound[3] ? Math.max(min, Number(bound[3])) : min + 1
  const last = frame.last
  if (!last) return
  const extra = Math.max(copies, 1) - 1
  frame.branch.size += last.size * extra
  frame.branch.lookarounds += last.lookarounds * extra
  frame.last = undefined
}
