package results

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
)

// Run is a run directory's contents: its manifest and its records, the
// latest of each unit.
type Run struct {
	Dir      string
	Manifest *Manifest
	// Records holds the latest record of each unit (see Latest).
	Records []Record
	// Superseded counts records replaced by a later one of the same unit.
	Superseded int
	// SupersededRecords are the attempts a re-run replaced (infrastructure
	// errors re-run on resume), in file order: they were paid for, so cost
	// totals count them. A re-judged record is not one (Partition).
	SupersededRecords []Record
	// Truncated is set when simulations.jsonl ended in an incomplete line.
	Truncated bool
}

// ErrNoRun is wrapped when a directory holds no run (no manifest.json).
var ErrNoRun = errors.New("not a run directory")

// LoadRun reads a run directory.
func LoadRun(dir string) (*Run, error) {
	m, err := ReadManifest(dir)
	if err != nil {
		if errors.Is(err, fs.ErrNotExist) {
			return nil, fmt.Errorf("%s: %w (no %s): %w", dir, ErrNoRun, ManifestFile, err)
		}
		return nil, err
	}
	all, info, err := ReadJSONLFile(filepath.Join(dir, SimulationsFile))
	if err != nil {
		return nil, err
	}
	latest, superseded := Partition(all)
	return &Run{Dir: dir, Manifest: m, Records: latest, Superseded: len(superseded), SupersededRecords: superseded, Truncated: info.Truncated}, nil
}

// Exists reports whether dir holds a run (a manifest.json).
func Exists(dir string) (bool, error) {
	_, err := os.Stat(filepath.Join(dir, ManifestFile))
	if err == nil {
		return true, nil
	}
	if errors.Is(err, fs.ErrNotExist) {
		return false, nil
	}
	return false, fmt.Errorf("check run directory: %w", err)
}

// Create makes a run directory and writes its manifest. The directory may
// exist but must not hold a run already.
func Create(dir string, m *Manifest) error {
	if ok, err := Exists(dir); err != nil {
		return err
	} else if ok {
		return fmt.Errorf("create run %s: a run already exists there", dir)
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return fmt.Errorf("create run: %w", err)
	}
	return WriteManifest(dir, m)
}
