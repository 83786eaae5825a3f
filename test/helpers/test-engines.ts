// TEST_ENGINES: the engines the suites run on when set (`TEST_ENGINES=postgres`, `ferretdb`,
// `mongodb`, comma-separated), so that one engine's tests can run alone; unset: each suite's own.
export type EngineName = 'postgres' | 'mongodb' | 'ferretdb'

/** The engines TEST_ENGINES names, or undefined when it is unset. */
export function chosenEngines(): EngineName[] | undefined {
  const value = process.env.TEST_ENGINES
  return value ? value.split(',').map(name => name.trim() as EngineName) : undefined
}
