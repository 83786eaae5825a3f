// Types of jxp-helper 1.4 (JXP's npm client, a dev dependency: the JXP compatibility
// tests drive Quire through it). It ships none; these follow its source.
declare module 'jxp-helper' {
  type Params = Record<string, unknown>
  export default class JXPHelper {
    constructor (opts: { server: string, apikey?: string, debug?: boolean, hideErrors?: boolean })
    config (opts: Params): void
    login (email: string, password: string): Promise<any>
    getOne (type: string, id: string, opts?: Params): Promise<any>
    get (type: string, opts?: Params): Promise<any>
    csv (type: string, opts?: Params): Promise<string>
    query (type: string, query: unknown, opts?: Params): Promise<any>
    aggregate (type: string, query: unknown, opts?: Params): Promise<any>
    count (type: string, opts?: Params): Promise<number>
    post (type: string, data: unknown): Promise<any>
    put (type: string, id: string, data: unknown): Promise<any>
    postput (type: string, key: string, data: Params): Promise<any>
    del (type: string, id: string): Promise<any>
    del_perm (type: string, id: string): Promise<any>
    del_cascade (type: string, id: string): Promise<any>
    del_perm_cascade (type: string, id: string): Promise<any>
    bulk (type: string, query: unknown[]): Promise<any>
    bulk_post (type: string, data: unknown[]): Promise<any>
    bulk_put (type: string, key: string, data: Params[]): Promise<any>
    bulk_postput (type: string, key: string | string[], data: Params[] | Params): Promise<any>
    put_all (type: string, data: Params): Promise<any>
    call (type: string, cmd: string, data?: unknown): Promise<any>
    groups_put (userId: string, groups: string | string[]): Promise<any>
    groups_post (userId: string, groups: string | string[]): Promise<any>
    groups_del (userId: string, group: string): Promise<any>
    getjwt (email: string): Promise<any>
    model (name: string): Promise<any>
    models (): Promise<any>
  }
}
