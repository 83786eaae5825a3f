// `quire models from-jxp <dir>`: reads a JXP app's Mongoose model files (*.js, *.ts) and writes
// Quire model files (and model-code stubs for hooks and statics) to --out, then prints what needs
// a human. JXP's own internal models (apikey, token, refreshtoken, usergroups, indexquerylog) are
// Quire's built-in credentials and groups: skipped.
import { existsSync, readdirSync, readFileSync, writeFileSync } from 'node:fs'
import { basename, join } from 'node:path'
import { makeDirectory } from '../../make-directory.ts'
import { convertSchema } from './convert-model.ts'
import { findSchemaSource } from './schema-source.ts'

const BUILT_IN = new Set(['apikey', 'token', 'refreshtoken', 'usergroups', 'usergroup', 'indexquerylog'])

export interface FromJxpResult {
  written: string[]
  report: string[]
}

export function modelsFromJxp(dir: string, out: string, overwrite = false): FromJxpResult {
  const files = readdirSync(dir)
    .filter(f => /\.(js|ts|cjs|mjs)$/.test(f) && !f.endsWith('.d.ts'))
    .sort()
  const written: string[] = []
  const report: string[] = []
  makeDirectory(out)
  for (const file of files) {
    const fallback = basename(file)
      .replace(/\.\w+$/, '')
      .replace(/_model$/, '')
    if (BUILT_IN.has(fallback)) {
      report.push(`${file}: JXP's ${fallback} is built into Quire (credentials, groups): skipped`)
      continue
    }
    const source = findSchemaSource(readFileSync(join(dir, file), 'utf8'))
    if (source === undefined) {
      report.push(`${file}: no schema found: skipped`)
      continue
    }
    let converted: ReturnType<typeof convertSchema>
    try {
      converted = convertSchema(source, fallback)
    } catch (err) {
      report.push(`${file}: could not be read (${(err as Error).message}): convert it by hand`)
      continue
    }
    const { model, code } = converted
    report.push(...converted.report)
    if (model === undefined) continue
    const targets: Array<[string, string]> = [[`${model.name}.json`, JSON.stringify(model, null, 2) + '\n']]
    if (code !== undefined) targets.push([`${model.name}.mjs`, code])
    for (const [name, text] of targets) {
      if (existsSync(join(out, name)) && !overwrite) {
        report.push(`${name}: exists in ${out}: not overwritten (--force)`)
        continue
      }
      writeFileSync(join(out, name), text)
      written.push(name)
    }
  }
  return { written, report }
}
