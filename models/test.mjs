// Code of the sample model `test`, beside models/test.json (.mjs: an ES module wherever
// it is copied), as JXP's sample model has it: a save hook that refuses one value with
// 418, and a method `test` that callers with the read right can call:
// POST /call/test/test -> "Testing OKAY!".
// The shape is described in the README ("Model code").

export const hooks = {
  beforeCreate(doc, ctx) {
    if (doc.bar === 'Throw an error') ctx.refuse(418, "I'm a teapot")
  },
  beforeUpdate(changes, ctx) {
    if (changes.bar === 'Throw an error') ctx.refuse(418, "I'm a teapot")
  }
}

export const methods = {
  test: {
    letter: 'r',
    description: 'Answers "Testing OKAY!"',
    run: () => 'Testing OKAY!'
  }
}
