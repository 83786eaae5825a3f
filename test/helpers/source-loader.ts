// How a test's child process loads src/*.ts: with the TypeScript loader the test itself runs
// under (tap's ts-node, and the environment it reads), tsx outside tap.
// Why: under tap every node child records coverage (tap's processinfo hooks spawn, whatever the
// child's environment), and tap's report merges every process's V8 ranges for a file. Those ranges
// are offsets into the transpiled code, so a file transpiled by tsx in the child and by ts-node in
// the test merges into nonsense: whichever source map is read last wins, and most of src/ was
// reported as one line. scripts/coverage-floor.mjs fails a run where that happened.
const testLoaderArgs = process.execArgv.filter(
  arg => arg.startsWith('--import=') && arg.includes('/@tapjs/typescript/')
)

/** node's arguments that load src/*.ts. */
export const SOURCE_LOADER_ARGS: readonly string[] = testLoaderArgs.length > 0 ? testLoaderArgs : ['--import', 'tsx']

/** The environment those arguments read (ts-node's settings), for a child not given this process's environment. */
export const SOURCE_LOADER_ENV: Readonly<Record<string, string>> = Object.fromEntries(
  Object.entries(process.env).filter((entry): entry is [string, string] => entry[0].startsWith('TS_NODE_'))
)
