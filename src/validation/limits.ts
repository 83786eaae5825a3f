// Every size limit on client input, in one table: the validation step enforces
// them before any engine sees a request, so all engines accept the same language.
// The README's "Limits" paragraphs list them for users.

export const LIMITS = {
  /** Conditions in one filter: each operator, implicit equality and logical operator counts. */
  filterTerms: 200,
  /** Nesting levels of filters ($and/$or/$nor, $not, $elemMatch each open one). */
  filterDepth: 8,
  /** Elements of one $in, $nin or $all list. */
  inValues: 1000,
  /** Terms of a sort. */
  sortTerms: 8,
  /** Fields of a projection (`fields=`, populate field lists). */
  projectionFields: 50,
  /** Fields one update document changes. */
  updateFields: 100,
  /** Stages of a pipeline, counting those of nested $lookup and $facet pipelines. */
  pipelineStages: 50,
  /** Nesting of $lookup and $facet pipelines. */
  pipelineNesting: 3,
  /** Sub-pipelines of one $facet. */
  facetPipelines: 10,
  /** Nesting of operators, arrays and objects inside one aggregation expression. */
  expressionDepth: 32,
  /**
   * Terms of all the expressions of one pipeline: each operator, operand, array element and object
   * field, and each character of a $dateToString format. The database evaluates a long argument
   * list as deep as it is long (a WebAssembly build ran out of stack on an $add of 1,500 to 3,000 terms).
   */
  expressionTerms: 1000,
  /** Operations of one bulk write. */
  bulkOperations: 1000,
  /** Documents one updateMany may change. */
  bulkUpdateDocuments: 10_000,
  /** Passwords hashed for one request (bcrypt costs about 60 ms each). */
  passwordsPerRequest: 10,
  /** Nesting of objects and arrays inside any JSON value a client sends. */
  valueDepth: 32,
  /** Filter terms of a list URL (filter[...] and search[...]). */
  urlFilterTerms: 50,
  /** Characters of one URL parameter value. */
  urlValueLength: 1000,
  /** Request bodies one client may have on their way in at once, by what they announce (in-flight-limits.ts). */
  bodyBytesPerClient: 32 * 1024 * 1024,
  /** Requests one connection may have in flight (pipelined, unanswered); more close it (in-flight-limits.ts). */
  requestsInFlightPerConnection: 32,
  /** ... and its client's new connections are then closed as they arrive for this long (not behind TRUST_PROXY). */
  pipeliningShutOutMs: 10_000,
  /** Requests one client may have waiting for its fair share (REQUESTS_PER_CLIENT); more are a 429. */
  requestsWaitingPerClient: 64,
  /** A client counts as active (and holds the others to their share) this long after its last request. */
  clientQuietMs: 250,
  /**
   * WebSocket messages one client (address, IPv6 by /64) may send a second, over all its connections; beyond that its
   * socket is closed (1008).
   */
  socketMessagesPerSecond: 20,
  /** ... and at once, after a quiet spell (a page subscribing to its models as it opens). */
  socketMessageBurst: 100,
  /** CSV exports running at once per process (each holds a database cursor while its client reads). */
  csvExports: 2,
  /**
   * Of those, how many one client address may run: two paused downloads from one address held every export off for
   * everyone.
   */
  csvExportsPerClient: 1,
  /** Documents read from the database at a time by a CSV export. */
  csvBatchRows: 500,
  /** How long a CSV export waits for a client that takes no data before it gives up. */
  csvStallMs: 30_000,
  /** Bytes of one aggregation's result (its documents as JSON); a larger one is refused. */
  aggregateResultBytes: 16 * 1024 * 1024
} as const
