// The node arguments with which a test's child process loads src/*.ts: the TypeScript loader the
// test itself runs under when the child inherits this process's environment, tsx otherwise.
// Why: under tap, a child that inherits the environment records coverage too, and tap's report
// merges every process's V8 ranges for a file. Those ranges are offsets into the transpiled code,
// so a file transpiled by tsx in the child and by tap's ts-node in the test merges into nonsense:
// whichever source map is read last wins, and most of src/ was reported as one line.
export const SOURCE_LOADER_ARGS: readonly string[] = testLoaderArgs() ?? ['--import', 'tsx']

function testLoaderArgs(): string[] | undefined {
  const loader = process.execArgv.filter(arg => arg.startsWith('--import=') && arg.includes('/@tapjs/typescript/'))
  return loader.length > 0 ? loader : undefined
}
