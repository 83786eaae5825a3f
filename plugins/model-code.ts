// Decorates the instance with `modelCode`: the hooks and methods of the models that
// have a module beside their JSON file (src/models/model-code.ts), loaded on start.
import fp from 'fastify-plugin'
import type { FastifyInstance } from 'fastify'
import { loadModelCode } from '../src/models/model-code.ts'

async function modelCodePlugin(app: FastifyInstance): Promise<void> {
  const code = await loadModelCode(app.config.modelsDir, app.models)
  const withCode = app.models
    .all()
    .filter(model => code.methodNames(model.name).length > 0 || Object.keys(code.hooksOf(model.name)).length > 0)
  if (withCode.length) app.log.info(`model code: ${withCode.map(model => model.name).join(', ')}`)
  app.decorate('modelCode', code)
}

export default fp(modelCodePlugin, { name: 'modelCode', dependencies: ['db'] })
