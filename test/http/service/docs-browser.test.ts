// /docs in a real browser (headless Chromium through playwright-core): the API reference loads
// from the server's own files under its Content-Security-Policy, shows the sample models'
// operations, and a "try it" request against the running server succeeds. Skipped, saying so,
// when no Chromium is installed (Debian: apt-get install chromium; or set CHROMIUM_PATH).
import t from 'tap'
import { existsSync, mkdirSync, mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { chromium } from 'playwright-core'
import { REPO_ROOT, startServer } from '../../helpers/run-cli.ts'
import { databaseUrl } from '../../helpers/test-app.ts'

const CANDIDATES = [
  process.env.CHROMIUM_PATH,
  '/usr/bin/chromium',
  '/usr/bin/chromium-browser',
  '/usr/bin/google-chrome'
]
const executablePath = CANDIDATES.find(path => path && existsSync(path))
const FLAGS = [
  '--headless',
  '--no-sandbox',
  '--disable-gpu',
  '--disable-quic',
  '--no-first-run',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync'
]
const SCREENSHOTS = join(REPO_ROOT, '.tap', 'screenshots')

const skip = executablePath ? false : 'no Chromium found (install the Debian package chromium, or set CHROMIUM_PATH)'

t.test('/docs shows the models\' operations and runs a "try it" request', { skip }, async t => {
  const server = await startServer({
    DATABASE_URL: await databaseUrl('postgres'),
    MODELS_DIR: join(REPO_ROOT, 'models'),
    MAX_EVENT_LOOP_DELAY_MS: '0',
    LOG_LEVEL: 'warn'
  })
  t.teardown(() => {
    server.child.kill('SIGTERM')
  })
  const post = (path: string, body: unknown, auth?: string) =>
    fetch(server.url + path, {
      method: 'POST',
      headers: {
        'content-type': 'application/json',
        ...(auth && { authorization: `Basic ${Buffer.from(auth).toString('base64')}` })
      },
      body: JSON.stringify(body)
    })
  t.equal((await post('/setup', { email: 'admin@example.com', password: 'admin-password' })).status, 200)
  t.equal(
    (await post('/api/test', { foo: 'seen through the browser' }, 'admin@example.com:admin-password')).status,
    200
  )

  const profile = mkdtempSync(join(tmpdir(), 'quire-chromium-'))
  const browser = await chromium.launchPersistentContext(profile, {
    executablePath,
    args: FLAGS,
    viewport: { width: 1280, height: 1700 }
  })
  t.teardown(async () => {
    await browser.close()
    rmSync(profile, { recursive: true, force: true })
  })
  const page = await browser.newPage()
  const problems: string[] = []
  page.on('console', message => {
    if (message.type() === 'error') problems.push(message.text())
  })
  page.on('requestfailed', request => problems.push(`${request.url()} failed`))

  await page.goto(`${server.url}/docs/`)
  const list = page.locator('#operations-test-getApiTest')
  await list.waitFor({ timeout: 30_000 })
  for (const id of ['getApiTest', 'postApiTest', 'getApiTestById', 'putApiTestById', 'deleteApiTestById'])
    t.equal(await page.locator(`#operations-test-${id}`).count(), 1, `test: ${id} is shown`)
  t.equal(await page.locator('#operations-link-getApiLink').count(), 1, 'link: its operations too')
  mkdirSync(SCREENSHOTS, { recursive: true })
  await page.screenshot({ path: join(SCREENSHOTS, 'docs.png') })

  await list.locator('.opblock-summary').click()
  await list.locator('button.execute').click()
  const status = list.locator('.live-responses-table tbody .response-col_status').first()
  await status.waitFor({ timeout: 30_000 })
  t.equal((await status.textContent())?.trim(), '200', 'the request went to the running server and succeeded')
  t.match(
    await list.locator('.live-responses-table .microlight').first().textContent(),
    /seen through the browser/,
    'with the stored document'
  )
  await list.screenshot({ path: join(SCREENSHOTS, 'docs-try-it.png') })
  t.same(problems, [], 'no script, style or request was refused (Content-Security-Policy) or failed')
  t.comment(`screenshots in ${SCREENSHOTS}`)
})
