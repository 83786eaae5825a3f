// Stands in for modules docs_auth.test.js needs only in its unit tests (restify-errors,
// jsonwebtoken, dist/libs/docs-auth), which the suite does not run (JXP internals, not HTTP).
'use strict'
module.exports = { DOCS_SESSION_COOKIE: 'jxp_docs_session' }
