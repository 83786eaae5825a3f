// MODEL_DIR's test_model for JXP's tests: JXP's Test model, through Quire's API.
'use strict'
module.exports = require('../mongoose-model').mongooseModel('test')
