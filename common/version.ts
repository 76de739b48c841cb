import { readFileSync } from 'node:fs'
import { fromRoot } from './paths.js'

export const version: string = (JSON.parse(readFileSync(fromRoot('package.json'), 'utf8')) as { version: string }).version
