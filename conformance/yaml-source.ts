/** The conformance side's names for the shared YAML diagnostics (common/yaml-diagnostics.ts). */
export { formatPos, humanPath, parseYamlSource, positionOf, schemaError, type YamlSource } from '../common/yaml-diagnostics.js'
export { pointerToPath } from '../common/schema-problems.js'
