// A Quire app listening on a free loopback port, for driving it the way JXP's
// clients do: through jxp-helper (JXP's npm client) over real HTTP.
import type { Test } from 'tap'
import type { AddressInfo } from 'node:net'
import JXPHelper from 'jxp-helper'
import type { Config } from '../../src/config.ts'
import { createTestApp, type EngineName, type TestApp } from './test-app.ts'
import { TEST_SETTINGS, login } from './auth-helpers.ts'

interface JxpUser {
  id: string
  apikey: string
  auth: string
}

export interface JxpServer extends TestApp {
  url: string
  adminUser: JxpUser
  /** Creates a user (non-admin unless said) and logs it in for its API key. */
  user: (email: string, password: string, fields?: Record<string, unknown>) => Promise<JxpUser>
  /** A jxp-helper for the server, with `apikey` or none; it prints no errors. */
  helper: (apikey?: string) => JXPHelper
}

export async function startJxpServer(t: Test, engine: EngineName, overrides: Partial<Config> = {}): Promise<JxpServer> {
  const testApp = await createTestApp(t, engine, { ...TEST_SETTINGS, ...overrides })
  const { app } = testApp
  await app.listen({ port: 0, host: '127.0.0.1' })
  const url = `http://127.0.0.1:${(app.server.address() as AddressInfo).port}`
  const user = async (email: string, password: string, fields: Record<string, unknown> = {}): Promise<JxpUser> => {
    const { auth, id } = await testApp.createUser(email, password, fields)
    return { id, auth, apikey: (await login(app, email, password)).apikey }
  }
  const adminLogin = await login(app, 'admin@example.com', 'admin-password')
  return {
    ...testApp,
    url,
    adminUser: { id: adminLogin.user_id, apikey: adminLogin.apikey, auth: testApp.admin },
    user,
    helper: (apikey?: string) =>
      new JXPHelper({ server: url, ...(apikey !== undefined && { apikey }), hideErrors: true })
  }
}
