// Package results owns run directories (manifest.json and simulations.jsonl)
// and the import and export of other harnesses' result files: τ²-bench's
// results JSON and τ-bench-v1 / τ-Trait result lists.
package results
