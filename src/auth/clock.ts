// The clock every expiry decision reads, shared by the auth components of one
// app; tests replace `now` to move time forward.

export interface Clock {
  /** Milliseconds since the epoch. */
  now: () => number
}

export function systemClock(): Clock {
  return { now: () => Date.now() }
}
