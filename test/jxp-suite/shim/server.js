// Stands in for JXP's `dist/bin/server` (its restify server): chai-http and the MCP tests only
// ask it for its address, which is the Quire server under test (JXP_SUITE_URL).
'use strict'
const url = new URL(process.env.JXP_SUITE_URL)

module.exports = {
  address: () => ({ address: url.hostname, port: Number(url.port) }),
  listen: () => {
    throw new Error('jxp-suite: the Quire server is started by run.mts')
  }
}
