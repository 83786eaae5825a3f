// A stand-in for the Mongoose models JXP's tests use directly (`new Test({...}).save()`,
// `Test.deleteMany()`, `new User({...}).save()`): the same calls, through Quire's API as an admin.
// Both callback and promise styles, as Mongoose 6 has them.
'use strict'
const api = require('./quire-api')

function settle(promise, cb) {
  if (typeof cb !== 'function') return promise
  promise.then(
    result => cb(null, result),
    err => cb(err)
  )
}

function mongooseModel(model) {
  return class {
    constructor(data) {
      Object.assign(this, data)
    }

    save(cb) {
      const data = JSON.parse(JSON.stringify(this))
      return settle(
        api.create(model, data).then(saved => Object.assign(this, saved)),
        cb
      )
    }

    static deleteMany(filter, cb) {
      const done = typeof filter === 'function' ? filter : cb
      return settle(
        api.adminOrThrow().then(admin => api.removeAll(model, admin)),
        done
      )
    }
  }
}

module.exports = { mongooseModel }
