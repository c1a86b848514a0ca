package submit

import (
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"github.com/ledgerbench/ledgerbench/internal/bench/results"
)

// Inputs resolves one input argument as upstream's expand_paths does for
// .json files: a run directory (manifest.json + simulations.jsonl), a
// τ²-bench results file, or a directory of results files (every *.json
// below it; its results.json alone when it has one). noManifest is told
// of each results file without a manifest describing it, and why.
func Inputs(arg string, noManifest func(path, why string)) ([]Input, error) {
	fi, err := os.Stat(arg)
	if err != nil {
		return nil, fmt.Errorf("submit prepare: %w", err)
	}
	if !fi.IsDir() && filepath.Base(arg) == results.SimulationsFile {
		arg, fi = filepath.Dir(arg), nil
	}
	if fi == nil || fi.IsDir() {
		if ok, err := results.Exists(arg); err != nil {
			return nil, err
		} else if ok {
			run, err := results.LoadRun(arg)
			if err != nil {
				return nil, err
			}
			return []Input{{Run: run}}, nil
		}
	}
	var paths []string
	switch {
	case !fi.IsDir():
		paths = []string{arg}
	default:
		if _, err := os.Stat(filepath.Join(arg, "results.json")); err == nil {
			paths = []string{filepath.Join(arg, "results.json")}
			break
		}
		err := filepath.WalkDir(arg, func(p string, d fs.DirEntry, err error) error {
			if err == nil && !d.IsDir() && strings.HasSuffix(p, ".json") && d.Name() != results.ManifestFile {
				paths = append(paths, p)
			}
			return err
		})
		if err != nil {
			return nil, fmt.Errorf("submit prepare: %w", err)
		}
		if len(paths) == 0 {
			return nil, fmt.Errorf("submit prepare: %s is neither a run directory nor holds τ²-bench results files", arg)
		}
	}
	var out []Input
	for _, p := range paths {
		f, err := results.ReadTau2(p)
		if err != nil {
			return nil, fmt.Errorf("submit prepare: %w", err)
		}
		m, why, err := FileManifest(p, f)
		if err != nil {
			return nil, err
		}
		if m == nil && noManifest != nil {
			noManifest(p, why)
		}
		out = append(out, Input{File: f, Path: p, Manifest: m})
	}
	return out, nil
}
