// Decorates the instance with `queryBuilder` (src/query/query-builder.ts).
import fp from 'fastify-plugin'
import type { FastifyInstance } from 'fastify'
import { createQueryBuilder } from '../src/query/query-builder.ts'

async function queryBuilderPlugin(app: FastifyInstance): Promise<void> {
  app.decorate('queryBuilder', createQueryBuilder(app.models, app.config))
}

export default fp(queryBuilderPlugin, { name: 'queryBuilder', dependencies: ['db'] })
