// What the MongoDB-wire server behind a mongodb:// URL can do, asked once when the engine opens.
// MongoDB itself has text indexes and every aggregation stage; transactions and change streams
// need a replica set or a sharded cluster (hello's setName, or a mongos). FerretDB v1 (a
// MongoDB-wire server over SQLite or PostgreSQL) says who it is in buildInfo (ferretdbVersion)
// and lists the aggregation stages it has; it has no text indexes, transactions or change
// streams, even when it reports a replica-set name. docs/mongodb.md tells what follows.
import type { Db, Document } from 'mongodb'

export interface MongoCapabilities {
  /** "MongoDB 7.0.12" or "FerretDB v1.24.2 (MongoDB 7.0.42 wire)". */
  server: string
  ferretdb: boolean
  /** Multi-document transactions (a replica set or mongos, not FerretDB). */
  transactions: boolean
  /** Change streams: the same condition as transactions. */
  changeStreams: boolean
  /** Text indexes and $text. */
  text: boolean
  /** MongoDB 6+: change events carry the document before the change. */
  preImages: boolean
  /** The aggregation stages the server has, when it says (FerretDB); undefined: every stage (MongoDB). */
  stages?: ReadonlySet<string>
}

export async function mongoCapabilities(db: Db): Promise<MongoCapabilities> {
  const admin = db.admin()
  const [info, hello] = await Promise.all([
    admin.command({ buildInfo: 1 }).catch((): Document => ({ version: '0' })),
    admin.command({ hello: 1 }).catch((): Document => ({}))
  ])
  const version = String(info.version ?? '0')
  if (info.ferretdbVersion !== undefined) {
    const stages = (info.ferretdbFeatures as Document | undefined)?.aggregationStages as string[] | undefined
    return {
      server: `FerretDB ${String(info.ferretdbVersion)} (MongoDB ${version} wire)`,
      ferretdb: true,
      transactions: false,
      changeStreams: false,
      text: false,
      preImages: false,
      stages: new Set(stages ?? [])
    }
  }
  const replicated = hello.setName !== undefined || hello.msg === 'isdbgrid'
  return {
    server: `MongoDB ${version}`,
    ferretdb: false,
    transactions: replicated,
    changeStreams: replicated,
    text: true,
    preImages: Number(version.split('.')[0]) >= 6
  }
}
