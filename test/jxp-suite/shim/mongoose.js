// Stands in for `mongoose` in JXP's test.js, which only waits for its connection: Quire is up.
'use strict'
module.exports = { connection: { readyState: 1, once() {} } }
