// The layout's dependency rules (docs/architecture.md, "Rooms"), checked by `npm run lint`.
// Type-only imports are exempt where a rule says so: they vanish at run time.
/** @type {import('dependency-cruiser').IConfiguration} */
module.exports = {
  forbidden: [
    {
      name: 'compiler-does-no-io',
      comment:
        'src/compiler is pure: no I/O module, no driver, no storage, runtime or embedded server ' +
        '(types of the storage contract allowed)',
      severity: 'error',
      from: { path: '^src/compiler/' },
      to: {
        dependencyTypesNot: ['type-only'],
        path: [
          '^(node:)?(fs|fs/promises|net|child_process|http|https|dgram|dns|worker_threads|cluster)$',
          '^(postgres|mongodb)$',
          '^src/(storage|runtime|embedded|cluster)/',
          'node_modules/(postgres|mongodb)/'
        ]
      }
    },
    {
      name: 'sql-storage-does-not-use-mongodb',
      severity: 'error',
      from: { path: '^src/storage/(sql|postgres)/' },
      to: { path: ['^src/storage/mongodb/', 'node_modules/mongodb/'] }
    },
    {
      name: 'mongodb-does-not-use-sql',
      comment: 'the MongoDB engine neither compiles SQL nor reaches the PostgreSQL driver',
      severity: 'error',
      from: { path: '^src/storage/mongodb/' },
      to: { path: ['^src/storage/(sql|postgres)/', '^src/compiler/', 'node_modules/postgres/'] }
    },
    {
      name: 'postgres-driver-does-not-use-the-engine',
      comment: 'the PostgreSQL client is a driver under the SQL engine, not beside it',
      severity: 'error',
      from: { path: '^src/storage/postgres/' },
      to: { path: '^src/storage/sql/(?!sql-client\\.ts$)' }
    },
    {
      name: 'src-knows-no-fastify',
      comment:
        'src/ is the service without its HTTP shell: no value import of Fastify, its plugins, plugins/ or routes/',
      severity: 'error',
      // serve-command is the one door from the command line into the HTTP app.
      from: { path: '^src/', pathNot: '^src/commands/serve-command\\.ts$' },
      to: {
        dependencyTypesNot: ['type-only'],
        path: ['^(plugins|routes)/', '^app\\.ts$', 'node_modules/(fastify|@fastify|fastify-plugin)/']
      }
    },
    {
      name: 'no-value-cycles',
      severity: 'error',
      from: {},
      to: { circular: true, viaOnly: { dependencyTypesNot: ['type-only'] } }
    }
  ],
  options: {
    doNotFollow: { path: 'node_modules' },
    tsPreCompilationDeps: true,
    tsConfig: { fileName: 'tsconfig.json' },
    enhancedResolveOptions: {
      exportsFields: ['exports'],
      conditionNames: ['import', 'require', 'node', 'default', 'types']
    },
    exclude: { path: '^(dist|scratch)/' }
  }
}
