// GET /health: liveness and the storage engine in use (no authentication).
import type { FastifyInstance } from 'fastify'

export default async function healthRoutes (app: FastifyInstance): Promise<void> {
  app.get('/health', async () => ({ status: 'ok', engine: app.db.kind }))
}
