// Checks a client's regular expression ($regex with $options, a $in/$all entry):
// the dialect every engine accepts, within the length and cost limits.
import { compileRegex, readRegex } from './regex-dialect.ts'

/** Throws INVALID_REGEX (400) naming the problem when the pattern or its options are not accepted. */
export function checkRegex(value: unknown, options?: unknown): void {
  compileRegex(readRegex(value, options))
}
