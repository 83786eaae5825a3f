// Seeded random choices for the fuzz's request builders: the same seed builds
// the same requests, so a failing run can be replayed (RELIABILITY_SEED).
import { createRandom } from '../../bench/seed-data.ts'
import type { Pools } from './pools.ts'
import type { Json } from './json-text.ts'

export interface Choice {
  random: () => number
  /** An integer in [min, max]. */
  int: (min: number, max: number) => number
  chance: (p: number) => boolean
  pick: <T>(items: readonly T[]) => T
  /** One of the builders, by weight. */
  weighted: <T>(options: ReadonlyArray<readonly [number, () => T]>) => T
  pools: Pools
  /** A hostile string (short). */
  string: () => string
  /** A hostile string, now and then a long one (1 KB to 300 KB; `maxLength` caps the choice). */
  sometimesLong: (maxLength?: number) => string
  /** A hostile JSON value: a string, a number (raw tokens too), or a nested value. */
  value: () => Json
}

export function createChoice(seed: number, pools: Pools): Choice {
  const random = createRandom(seed)
  const int = (min: number, max: number): number => min + Math.floor(random() * (max - min + 1))
  const pick = <T>(items: readonly T[]): T => items[Math.floor(random() * items.length)]
  const chance = (p: number): boolean => random() < p
  const string = (): string => pick(pools.strings)
  const sometimesLong = (maxLength = Infinity): string => {
    const long = pools.longStrings.filter(l => l.length <= maxLength)
    return long.length && chance(0.03) ? pick(long) : string()
  }
  return {
    random,
    int,
    chance,
    pick,
    pools,
    string,
    sometimesLong,
    weighted: options => {
      let roll = random() * options.reduce((sum, [w]) => sum + w, 0)
      for (const [weight, build] of options) {
        roll -= weight
        if (roll < 0) return build()
      }
      return options[options.length - 1][1]()
    },
    value: () => {
      const roll = random()
      if (roll < 0.45) return sometimesLong(70_000)
      if (roll < 0.7) return pick(pools.numbers)
      if (roll < 0.8) return pick([true, false, null, [], {}] as Json[])
      return pick(pools.values)
    }
  }
}
