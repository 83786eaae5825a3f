// JXP 5.1's test model code, translated: its save hook refuses bar "Throw an error" with 418
// (restify's ImATeapotError) and its callable static `test` answers "Testing OKAY!".
export const hooks = {
  beforeCreate (doc, ctx) {
    if (doc.bar === 'Throw an error') ctx.refuse(418, "I'm a teapot")
  },
  beforeUpdate (changes, ctx) {
    if (changes.bar === 'Throw an error') ctx.refuse(418, "I'm a teapot")
  }
}

export const methods = {
  test: { letter: 'r', description: 'Answers "Testing OKAY!"', run: () => 'Testing OKAY!' }
}
