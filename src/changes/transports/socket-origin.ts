// Which browser pages may open a WebSocket: browsers apply no CORS to WebSockets, so a page on
// any site could otherwise open one with the browser's credentials (cross-site WebSocket
// hijacking). Allowed: no Origin (not a browser), the server's own origin, or CORS_ORIGINS.
export function isAllowedOrigin(origin: string | undefined, host: string | undefined, corsOrigins: string[]): boolean {
  if (origin === undefined) return true
  if (corsOrigins.includes('*') || corsOrigins.includes(origin)) return true
  try {
    return host !== undefined && new URL(origin).host === host
  } catch {
    return false
  }
}
