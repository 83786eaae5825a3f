// Loaded by mocha (--require) before JXP's test files: their requires of JXP's own code
// (../dist/bin/server, ./init, mongoose, docs-auth internals) resolve to this folder's stand-ins,
// so the test files themselves run as JXP wrote them.
'use strict'
const Module = require('node:module')
const path = require('node:path')

const here = __dirname
const STAND_INS = {
  '../dist/bin/server': 'server.js',
  './init': 'init.js',
  mongoose: 'mongoose.js',
  '../dist/libs/docs-auth': 'unit-only.js',
  'restify-errors': 'unit-only.js',
  jsonwebtoken: 'unit-only.js'
}

const resolve = Module._resolveFilename
Module._resolveFilename = function (request, parent, ...rest) {
  const fromJxpTests = parent?.filename && path.basename(path.dirname(parent.filename)) === 'test'
  if (fromJxpTests && Object.hasOwn(STAND_INS, request)) return path.join(here, STAND_INS[request])
  return resolve.call(this, request, parent, ...rest)
}
