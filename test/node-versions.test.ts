// Node 20 and 22 are supported, and package.json's engines says so honestly: the oldest release
// of each supported line satisfies every runtime dependency's own engines field (from
// package-lock.json), but for the exceptions named below; the GitHub workflow tests each line
// (and tries 24); the container image runs 22.
import t from 'tap'
import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import semver from 'semver'
import { REPO_ROOT } from './helpers/run-cli.ts'

/** The oldest release of each supported line that package.json's engines admits. */
const OLDEST = ['20.20.2', '22.12.0']

/**
 * Runtime dependencies that declare `node >=22` without using anything Node 20 lacks: the suite
 * runs them on Node 20 (light-my-request's cookies in every inject, @fastify/static's downloads
 * for /docs) in the GitHub workflow.
 */
const DECLARED_ONLY: Record<string, string> = {
  cookie: 'light-my-request (fastify.inject)',
  'content-disposition': '@fastify/static (/docs files)'
}

const read = (file: string): string => readFileSync(join(REPO_ROOT, file), 'utf8')

t.test('engines admits Node 20 and 22 from their oldest supported releases, and no line in between', async t => {
  const range = (JSON.parse(read('package.json')) as { engines: { node: string } }).engines.node
  for (const version of OLDEST) t.ok(semver.satisfies(version, range), `${version} satisfies ${range}`)
  t.notOk(semver.satisfies('21.7.3', range), 'Node 21 (odd, never supported) does not')
  t.notOk(semver.satisfies('20.19.0', range), 'nor a Node 20 older than @fastify/sse needs')
})

t.test('every runtime dependency runs on those releases', async t => {
  const lock = JSON.parse(read('package-lock.json')) as {
    packages: Record<string, { dev?: boolean; engines?: { node?: string } }>
  }
  const refusing = Object.entries(lock.packages)
    .filter(([path, entry]) => path !== '' && entry.dev !== true && entry.engines?.node !== undefined)
    .flatMap(([path, entry]) => {
      const name = path.slice(path.lastIndexOf('node_modules/') + 'node_modules/'.length)
      const refused = OLDEST.filter(version => !semver.satisfies(version, entry.engines!.node!))
      return refused.length > 0 && !Object.hasOwn(DECLARED_ONLY, name)
        ? [`${name} (${entry.engines!.node}) refuses ${refused.join(', ')}`]
        : []
    })
  t.same(refusing, [], 'no runtime dependency refuses a supported Node')
})

t.test('the GitHub workflow tests Node 20, 22 and 24; the image runs 22', async t => {
  const matrix = [...read('.github/workflows/ci.yml').matchAll(/\{ node: (\d+), postgres: \d+[,}]/g)].map(m =>
    Number(m[1])
  )
  for (const node of [20, 22, 24]) t.ok(matrix.includes(node), `Node ${node} in the test matrix`)
  t.match(read('Dockerfile'), /^ARG NODE_VERSION=22$/m, "the image's Node")
})
