/** The conformance side's names for the shared YAML diagnostics (common/yaml-diagnostics.ts). */
export { compileSchemaFile, formatPos, humanPath, parseYamlSource, pointerToPath, positionOf, schemaError, type YamlSource } from '../common/yaml-diagnostics.js'
