// String, array and date expression operators. Dates are stored as ISO 8601 UTC strings
// with milliseconds ("2024-05-01T12:30:00.000Z"), so date parts are read off the text.
import { QuireError } from '../../errors.ts'
import { bindValues, floatOf, textOf, JSON_NULL } from './jsonb-sql.ts'
import { isPlainObject } from '../../validation/values.ts'
import type { ExprCompiler, OperatorCompiler } from './pipeline-state.ts'
import { argumentList } from './expression-operators.ts'

const ISO_DATE = '^[0-9]{4}-[0-9]{2}-[0-9]{2}T[0-9]{2}:[0-9]{2}:[0-9]{2}[.][0-9]{3}Z$'

/** Character ranges of the stored ISO text for each date part (1-based start, length). */
const DATE_PARTS: Record<string, [start: number, length: number]> = {
  Y: [1, 4],
  m: [6, 2],
  d: [9, 2],
  H: [12, 2],
  M: [15, 2],
  S: [18, 2],
  L: [21, 3]
}

const DATE_PART_OPERATORS: Record<string, string> = {
  $year: 'Y',
  $month: 'm',
  $dayOfMonth: 'd',
  $hour: 'H',
  $minute: 'M',
  $second: 'S',
  $millisecond: 'L'
}

const DEFAULT_DATE_FORMAT = '%Y-%m-%dT%H:%M:%S.%LZ'
const UTC_NAMES = new Set(['UTC', 'Z', 'GMT', '+00:00', '+0000', 'Etc/UTC'])

/** An integer operand, clamped so that the int cast cannot overflow; SQL NULL when not a number. */
function intOf(v: string): string {
  return `(LEAST(GREATEST(${floatOf(v)}, -1e9), 1e9))::int`
}

/** $concat: the concatenation when every argument is a string, else null. */
const concat: OperatorCompiler = (args, c) => {
  const values = argumentList('$concat', args, 0, Infinity).map(c.value)
  if (values.length === 0) return c.scope.st.params.addJson('')
  return bindValues(c.scope, values, refs => `COALESCE(to_jsonb(${refs.map(textOf).join(' || ')}), ${JSON_NULL})`)
}

/** $toLower / $toUpper: ASCII case mapping; null or missing gives "", a number its text. */
function changeCase(name: string, fn: 'lower' | 'upper'): OperatorCompiler {
  return (args, c) =>
    bindValues(
      c.scope,
      [c.value(argumentList(name, args, 1)[0])],
      ([v]) =>
        `CASE jsonb_typeof(${v}) WHEN 'string' THEN to_jsonb(${fn}((${v} #>> '{}') COLLATE "C")) ` +
        `WHEN 'number' THEN to_jsonb(${v} #>> '{}') WHEN 'null' THEN '""'::jsonb ` +
        `ELSE CASE WHEN ${v} IS NULL THEN '""'::jsonb ELSE ${JSON_NULL} END END`
    )
}

/** $substr / $substrCP [string, start, length] in code points; a negative length runs to the end. */
function substring(name: string): OperatorCompiler {
  return (args, c) =>
    bindValues(c.scope, argumentList(name, args, 3).map(c.value), ([s, start, length]) => {
      const [text, from, count] = [`COALESCE(${textOf(s)}, '')`, intOf(start), intOf(length)]
      return (
        `COALESCE(to_jsonb(CASE WHEN ${from} < 0 THEN '' WHEN ${count} < 0 THEN substr(${text}, ${from} + 1) ` +
        `ELSE substr(${text}, ${from} + 1, ${count}) END), ${JSON_NULL})`
      )
    })
}

/** $size: the length of an array; null for anything else. */
const size: OperatorCompiler = (args, c) =>
  bindValues(
    c.scope,
    [c.value(argumentList('$size', args, 1)[0])],
    ([v]) => `CASE WHEN jsonb_typeof(${v}) = 'array' THEN to_jsonb(jsonb_array_length(${v})) ELSE ${JSON_NULL} END`
  )

/** $arrayElemAt [array, index]: negative indexes count from the end; out of range is missing. */
const arrayElemAt: OperatorCompiler = (args, c) =>
  bindValues(
    c.scope,
    argumentList('$arrayElemAt', args, 2).map(c.value),
    ([a, i]) => `CASE WHEN jsonb_typeof(${a}) = 'array' THEN ${a} -> ${intOf(i)} ELSE ${JSON_NULL} END`
  )

/** $in [value, array] as a condition: true when an element equals the value. */
const inArray: OperatorCompiler = (args, c) =>
  bindValues(
    c.scope,
    argumentList('$in', args, 2).map(c.value),
    ([v, a]) =>
      `EXISTS (SELECT 1 FROM jsonb_array_elements(CASE WHEN jsonb_typeof(${a}) = 'array' THEN ${a} ELSE ` +
      `'[]'::jsonb END) ` +
      `AS el(x) WHERE el.x = ${v})`
  )

/** The date argument of a date operator: `expr`, `[expr]` or `{date, timezone}` with a UTC timezone. */
function dateArgument(name: string, args: unknown): unknown {
  if (isPlainObject(args) && 'date' in args) {
    const { date, timezone, ...rest } = args
    if (Object.keys(rest).length > 0) throw new QuireError('INVALID_QUERY', `${name} accepts only date and timezone`)
    checkUtc(name, timezone)
    return date
  }
  return argumentList(name, args, 1)[0]
}

function checkUtc(name: string, timezone: unknown): void {
  if (timezone !== undefined && !(typeof timezone === 'string' && UTC_NAMES.has(timezone))) {
    throw new QuireError('UNSUPPORTED_OPERATOR', `${name}: only the UTC timezone is supported`)
  }
}

/** SQL text of a date part of `v` (a cheap jsonb string reference known to be an ISO date). */
function datePartText(v: string, part: string): string {
  const [start, length] = DATE_PARTS[part]
  return `substr(${v} #>> '{}', ${start}, ${length})`
}

/** Wraps `body` so that it only runs on ISO date strings; other values give `otherwise`. */
function whenDate(v: string, body: string, otherwise: string): string {
  return (
    `CASE WHEN jsonb_typeof(${v}) = 'string' AND (${v} #>> '{}') ~ '${ISO_DATE}' THEN ${body} ` +
    `ELSE ${otherwise} END`
  )
}

function datePart(name: string, part: string): OperatorCompiler {
  return (args, c) =>
    bindValues(c.scope, [c.value(dateArgument(name, args))], ([v]) =>
      whenDate(v, `to_jsonb(${datePartText(v, part)}::int)`, JSON_NULL)
    )
}

/** $dateToString with the %Y %m %d %H %M %S %L %% specifiers, UTC only, and onNull. */
const dateToString: OperatorCompiler = (args, c: ExprCompiler) => {
  if (!isPlainObject(args) || !('date' in args)) {
    throw new QuireError('INVALID_QUERY', '$dateToString needs {date, format?, timezone?, onNull?}')
  }
  const { date, format = DEFAULT_DATE_FORMAT, timezone, onNull, ...rest } = args
  if (Object.keys(rest).length > 0)
    throw new QuireError('INVALID_QUERY', '$dateToString accepts only date, format, timezone and onNull')
  if (typeof format !== 'string') throw new QuireError('INVALID_QUERY', '$dateToString format must be a literal string')
  checkUtc('$dateToString', timezone)
  const nullValue = onNull === undefined ? JSON_NULL : c.value(onNull)
  return bindValues(c.scope, [c.value(date)], ([v]) => {
    const text = formatPieces(format).map(p =>
      p.part !== undefined ? datePartText(v, p.part) : `${c.scope.st.params.add(p.text)}::text`
    )
    const formatted = text.length === 0 ? '\'""\'::jsonb' : `to_jsonb(${text.join(' || ')})`
    return whenDate(
      v,
      formatted,
      `CASE WHEN ${v} IS NULL OR jsonb_typeof(${v}) = 'null' THEN ${nullValue} ELSE ${JSON_NULL} END`
    )
  })
}

/** Splits a $dateToString format into literal text and date parts. */
function formatPieces(format: string): Array<{ text: string; part?: string }> {
  const pieces: Array<{ text: string; part?: string }> = []
  for (const token of format.match(/%.|[^%]+|%$/g) ?? []) {
    if (!token.startsWith('%')) pieces.push({ text: token })
    else if (token === '%%') pieces.push({ text: '%' })
    else if (DATE_PARTS[token.slice(1)] !== undefined) pieces.push({ text: token, part: token.slice(1) })
    else throw new QuireError('UNSUPPORTED_OPERATOR', `Unsupported $dateToString format specifier: ${token}`)
  }
  return pieces
}

/** String, array and date operators whose SQL result is jsonb. */
export const DATA_OPERATORS: Record<string, OperatorCompiler> = {
  $concat: concat,
  $toLower: changeCase('$toLower', 'lower'),
  $toUpper: changeCase('$toUpper', 'upper'),
  $substr: substring('$substr'),
  $substrCP: substring('$substrCP'),
  $size: size,
  $arrayElemAt: arrayElemAt,
  $dateToString: dateToString,
  ...Object.fromEntries(Object.entries(DATE_PART_OPERATORS).map(([op, part]) => [op, datePart(op, part)]))
}

/** Array operators whose SQL result is a boolean. */
export const DATA_CONDITIONS: Record<string, OperatorCompiler> = { $in: inArray }
