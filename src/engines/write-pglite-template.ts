// `npm run build`'s last step: writes the PGlite template (pglite-template.ts) into dist/.
import { writeTemplate } from './pglite-template.ts'

const started = Date.now()
const path = await writeTemplate()
process.stdout.write(`PGlite template written to ${path} in ${((Date.now() - started) / 1000).toFixed(1)} s\n`)
