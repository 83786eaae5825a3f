// /openapi.json passes `redocly lint` (@redocly/cli, the recommended rules with warnings as
// errors: redocly.yaml) with no problem at all, with PUBLIC_URL set and unset: what strict tools
// and client generators need (3.1 nullability, servers, an operation id on every operation).
import t from 'tap'
import { execFile } from 'node:child_process'
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { promisify } from 'node:util'
import { createTestApp } from '../../helpers/test-app.ts'
import { REPO_ROOT } from '../../helpers/run-cli.ts'

const run = promisify(execFile)

interface LintReport {
  totals: { errors: number; warnings: number }
  problems: Array<{ ruleId: string; message: string; location: Array<{ pointer: string }> }>
}

/** `redocly lint` of `document`, with the repository's redocly.yaml, as JSON. */
async function lint(document: unknown): Promise<LintReport> {
  const dir = mkdtempSync(join(tmpdir(), 'quire-lint-'))
  try {
    const file = join(dir, 'openapi.json')
    writeFileSync(file, JSON.stringify(document))
    const cli = join(REPO_ROOT, 'node_modules/@redocly/cli/bin/cli.js')
    const env = { ...process.env, REDOCLY_TELEMETRY: 'off', REDOCLY_SUPPRESS_UPDATE_NOTICE: 'true' }
    // Exit code 1 when it finds problems: the report on stdout says which.
    const { stdout } = await run(
      process.execPath,
      [cli, 'lint', file, '--format', 'json', '--config', join(REPO_ROOT, 'redocly.yaml')],
      { env }
    ).catch(err => err as { stdout: string })
    return JSON.parse(stdout) as LintReport
  } finally {
    rmSync(dir, { recursive: true, force: true })
  }
}

const summary = (report: LintReport): string =>
  report.problems
    .slice(0, 10)
    .map(p => `${p.ruleId} at ${p.location[0]?.pointer}: ${p.message}`)
    .join('\n')

for (const publicUrl of [undefined, 'https://api.example.org']) {
  t.test(`redocly lint: no error, no warning (PUBLIC_URL ${publicUrl ?? 'unset'})`, async t => {
    const { app } = await createTestApp(t, 'postgres', { metricsEnabled: true, publicUrl })
    const document = (await app.inject('/openapi.json')).json() as {
      servers: Array<{ url: string }>
      paths: Record<string, Record<string, { responses?: Record<string, unknown> }>>
    }
    t.same(
      document.servers.map(s => s.url),
      [publicUrl ?? '/'],
      'the server clients call'
    )
    // redocly.yaml turns operation-2xx-response off for the sign-in redirects: every other operation has a 2XX answer.
    const without2xx = Object.entries(document.paths).flatMap(([path, item]) =>
      Object.entries(item)
        .filter(([, op]) => !Object.keys(op.responses ?? {}).some(code => /^2/.test(code)))
        .map(([method]) => `${method} ${path}`)
    )
    t.same(
      without2xx,
      ['get /login/oauth/{provider}', 'get /login/oauth/callback/{provider}'],
      'only the redirects lack a 2XX answer'
    )
    const report = await lint(document)
    t.equal(report.totals.errors, 0, `errors${report.totals.errors ? `:\n${summary(report)}` : ''}`)
    t.equal(report.totals.warnings, 0, `warnings${report.totals.warnings ? `:\n${summary(report)}` : ''}`)
  })
}
