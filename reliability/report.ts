// What a scenario hands back (its figures, its verdict and why) and how the
// suite prints it: one line per scenario and engine, PASS or FAIL first.
export interface Check {
  /** What is judged, e.g. "5xx responses". */
  name: string
  ok: boolean
  /** The measured value, as shown, e.g. "0" or "p99 41 ms (normal 12 ms)". */
  value: string
}

export interface ScenarioResult {
  scenario: string
  /** postgres, default, or "all" for a result over the whole run. */
  engine: string
  pass: boolean
  seconds: number
  /** Figures worth keeping, in the order printed. */
  figures: Record<string, number | string | boolean>
  checks: Check[]
  /** Up to a few examples of what went wrong (requests, responses), for the FAIL line's reader. */
  failures: string[]
}

/** A result from its checks: it passes when every check does. */
export function resultOf(
  scenario: string,
  engine: string,
  started: number,
  checks: Check[],
  figures: ScenarioResult['figures'],
  failures: string[] = []
): ScenarioResult {
  return {
    scenario,
    engine,
    pass: checks.every(c => c.ok),
    seconds: Math.round((Date.now() - started) / 1000),
    figures,
    checks,
    failures: failures.slice(0, 50)
  }
}

/** A result for a scenario that could not run to its end. */
export function brokenResult(scenario: string, engine: string, started: number, err: unknown): ScenarioResult {
  const message = (err as Error)?.stack ?? String(err)
  return resultOf(
    scenario,
    engine,
    started,
    [{ name: 'ran to the end', ok: false, value: message.split('\n')[0] }],
    {},
    [message]
  )
}

export function check(name: string, ok: boolean, value: string | number): Check {
  return { name, ok, value: String(value) }
}

/** "PASS fuzz      postgres  5xx 0, crashes 0, ... (54 s)"; failing checks are marked with "!". */
export function formatResult(r: ScenarioResult): string {
  const checks = r.checks.map(c => `${c.ok ? '' : '!'}${c.name} ${c.value}`).join(', ')
  return `${r.pass ? 'PASS' : 'FAIL'} ${r.scenario.padEnd(9)} ${r.engine.padEnd(8)} ${checks} (${r.seconds} s)`
}
