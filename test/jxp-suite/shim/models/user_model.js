// MODEL_DIR's user_model for JXP's tests: JXP's User model, through Quire's API.
'use strict'
module.exports = require('../mongoose-model').mongooseModel('user')
