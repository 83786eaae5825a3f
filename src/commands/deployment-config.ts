// The configuration of the commands that move a deployment's documents (backup, restore, import,
// export). They need its model files: run outside the folder holding `models/` (MODELS_DIR's
// default) they would see only the built-in models, and a backup would hold less than the
// deployment without a word. A MODELS_DIR that does not exist is refused instead (`quire serve`
// only warns: it can still serve the users).
import { existsSync } from 'node:fs'
import { type Config, loadConfig } from '../config.ts'
import { StartupError } from '../startup-error.ts'

/** loadConfig(), refused with one line when its MODELS_DIR does not exist. */
export function deploymentConfig(command: string): Config {
  const config = loadConfig()
  if (!existsSync(config.modelsDir))
    throw new StartupError(
      `${command}: MODELS_DIR ${config.modelsDir} does not exist: run it in the folder holding ` +
        `the deployment's models/, or set MODELS_DIR to it (an empty folder if it has no models)`
    )
  return config
}
