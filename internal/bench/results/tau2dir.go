package results

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"

	"github.com/ledgerbench/ledgerbench/internal/bench/evaluator"
	"github.com/ledgerbench/ledgerbench/internal/py/pyjson"
)

// τ²-bench's directory results format (Results.save(format="dir")): a
// metadata file results.json (timestamp, info, tasks, simulation_index,
// without the simulations) and one SimulationRun per file in simulations/
// beside it, named <simulation id>.json and read in file-name order.

// Names of the directory format's parts.
const (
	Tau2DirMeta = "results.json"
	Tau2DirSims = "simulations"
)

// Tau2DirPaths reports whether path is in τ²-bench's directory format, as
// upstream's Results._detect_format decides: a directory, or a file with a
// simulations/ directory beside it; it returns the metadata file and the
// simulations directory. A run directory of ours (simulations.jsonl, no
// simulations/) is not one.
func Tau2DirPaths(path string) (meta, sims string, ok bool) {
	fi, err := os.Stat(path)
	if err != nil {
		return "", "", false
	}
	if fi.IsDir() {
		meta, sims = filepath.Join(path, Tau2DirMeta), filepath.Join(path, Tau2DirSims)
	} else {
		meta, sims = path, filepath.Join(filepath.Dir(path), Tau2DirSims)
	}
	if si, err := os.Stat(sims); err != nil || !si.IsDir() {
		return "", "", false
	}
	if mi, err := os.Stat(meta); err != nil || mi.IsDir() {
		return "", "", false
	}
	return meta, sims, true
}

// readTau2Dir reads a results directory into one Tau2File, with upstream's
// integrity check: when results.json has a simulation_index, its ids and
// the simulation files' names must be the same sets.
func readTau2Dir(meta, sims string) (*Tau2File, error) {
	data, err := os.ReadFile(meta)
	if err != nil {
		return nil, fmt.Errorf("read results: %w", err)
	}
	var m struct {
		Tau2File
		Index *[]struct {
			ID string `json:"id"`
		} `json:"simulation_index"`
	}
	if err := json.Unmarshal(data, &m); err != nil {
		return nil, fmt.Errorf("%s: not a τ²-bench results file: %w", meta, err)
	}
	if m.Info == nil {
		return nil, fmt.Errorf("%s: %w: a results.json without \"info\" beside %s/", meta, ErrNotResults, Tau2DirSims)
	}
	files, err := filepath.Glob(filepath.Join(sims, "*.json"))
	if err != nil {
		return nil, fmt.Errorf("read results: %w", err)
	}
	sort.Strings(files)
	if m.Index != nil {
		indexed := map[string]bool{}
		for _, e := range *m.Index {
			indexed[e.ID] = true
		}
		var missing, extra []string
		onDisk := map[string]bool{}
		for _, f := range files {
			id := strings.TrimSuffix(filepath.Base(f), ".json")
			onDisk[id] = true
			if !indexed[id] {
				extra = append(extra, id)
			}
		}
		for id := range indexed {
			if !onDisk[id] {
				missing = append(missing, id)
			}
		}
		slices.Sort(missing)
		var errs []string
		if len(missing) > 0 {
			errs = append(errs, fmt.Sprintf("missing simulation files: %s", strings.Join(missing, ", ")))
		}
		if len(extra) > 0 {
			errs = append(errs, fmt.Sprintf("simulation files not in the index: %s", strings.Join(extra, ", ")))
		}
		if len(errs) > 0 {
			return nil, fmt.Errorf("%s: directory results do not match their simulation_index: %s", meta, strings.Join(errs, "; "))
		}
	}
	f := m.Tau2File
	f.Simulations = make([]Tau2Simulation, 0, len(files))
	f.simFiles = files
	for _, p := range files {
		b, err := os.ReadFile(p)
		if err != nil {
			return nil, fmt.Errorf("read results: %w", err)
		}
		var s Tau2Simulation
		if err := json.Unmarshal(b, &s); err != nil {
			return nil, fmt.Errorf("%s: not a τ²-bench simulation: %w", p, err)
		}
		f.Simulations = append(f.Simulations, s)
	}
	f.metaFile = meta
	return &f, nil
}

// SimulationFiles are the files a directory-format results file's
// simulations were read from, in order (nil for a single JSON file).
func (f *Tau2File) SimulationFiles() []string { return f.simFiles }

// MetaFile is the results.json of a directory-format results file ("" for
// a single JSON file).
func (f *Tau2File) MetaFile() string { return f.metaFile }

// Tau2DirFile is one file of a directory-format results file rewritten.
type Tau2DirFile struct {
	Path string // relative to the output: results.json or simulations/<id>.json
	Data []byte
}

// RewriteTau2DirRewards is RewriteTau2Rewards for a results file read in
// the directory format (f from ReadTau2): the metadata with each
// simulation_index entry's reward set to its simulation's new one, and
// every simulation file, its reward_info replaced by rewards[i] where that
// is not nil. metaName is the name the metadata takes.
func RewriteTau2DirRewards(f *Tau2File, rewards []*evaluator.RewardInfo, metaName string) ([]Tau2DirFile, error) {
	if f.metaFile == "" {
		return nil, errors.New("rewrite τ²-bench results: not in the directory format")
	}
	if len(rewards) > len(f.simFiles) {
		return nil, fmt.Errorf("rewrite τ²-bench results: %d rewards for %d simulations", len(rewards), len(f.simFiles))
	}
	newReward := map[string]float64{}
	var out []Tau2DirFile
	for i, p := range f.simFiles {
		b, err := os.ReadFile(p)
		if err != nil {
			return nil, fmt.Errorf("read results: %w", err)
		}
		if i < len(rewards) && rewards[i] != nil {
			if b, err = rewriteReward(b, rewards[i]); err != nil {
				return nil, fmt.Errorf("%s: %w", p, err)
			}
			newReward[f.Simulations[i].ID] = rewards[i].Reward
		}
		var ind bytes.Buffer
		if err := json.Indent(&ind, b, "", "  "); err != nil {
			return nil, fmt.Errorf("%s: %w", p, err)
		}
		out = append(out, Tau2DirFile{Path: filepath.Join(Tau2DirSims, filepath.Base(p)), Data: ind.Bytes()})
	}
	meta, err := os.ReadFile(f.metaFile)
	if err != nil {
		return nil, fmt.Errorf("read results: %w", err)
	}
	var mb bytes.Buffer
	mb.WriteByte('{')
	n := 0
	err = pyjson.Object(meta, func(key string, value []byte) error {
		if n > 0 {
			mb.WriteByte(',')
		}
		n++
		k, _ := json.Marshal(key)
		mb.Write(k)
		mb.WriteByte(':')
		if key != "simulation_index" || bytes.Equal(bytes.TrimSpace(value), []byte("null")) {
			mb.Write(value)
			return nil
		}
		mb.WriteByte('[')
		err := pyjson.Array(value, func(i int, entry []byte) error {
			if i > 0 {
				mb.WriteByte(',')
			}
			var e struct {
				ID string `json:"id"`
			}
			if err := json.Unmarshal(entry, &e); err != nil {
				return fmt.Errorf("simulation_index %d: %w", i, err)
			}
			r, ok := newReward[e.ID]
			if !ok {
				mb.Write(entry)
				return nil
			}
			m := 0
			mb.WriteByte('{')
			err := pyjson.Object(entry, func(key string, value []byte) error {
				if m > 0 {
					mb.WriteByte(',')
				}
				m++
				k, _ := json.Marshal(key)
				mb.Write(k)
				mb.WriteByte(':')
				if key == "reward" {
					value, _ = json.Marshal(r)
				}
				mb.Write(value)
				return nil
			})
			mb.WriteByte('}')
			return err
		})
		mb.WriteByte(']')
		return err
	})
	if err != nil {
		return nil, fmt.Errorf("%s: %w", f.metaFile, err)
	}
	mb.WriteByte('}')
	var ind bytes.Buffer
	if err := json.Indent(&ind, mb.Bytes(), "", "  "); err != nil {
		return nil, fmt.Errorf("%s: %w", f.metaFile, err)
	}
	return append([]Tau2DirFile{{Path: metaName, Data: ind.Bytes()}}, out...), nil
}

// Tau2DirJSON joins a results file read in the directory format into
// upstream's single-file form, as Results.load then save(format="json")
// would: the metadata's keys (without format_version, which load drops)
// and the simulations, each as its file has it, indented by two spaces.
func Tau2DirJSON(f *Tau2File) ([]byte, error) {
	if f.metaFile == "" {
		return nil, errors.New("join τ²-bench results: not in the directory format")
	}
	meta, err := os.ReadFile(f.metaFile)
	if err != nil {
		return nil, fmt.Errorf("read results: %w", err)
	}
	var b bytes.Buffer
	b.WriteByte('{')
	n := 0
	err = pyjson.Object(meta, func(key string, value []byte) error {
		if key == "format_version" || key == "simulations" {
			return nil
		}
		if n > 0 {
			b.WriteByte(',')
		}
		n++
		k, _ := json.Marshal(key)
		b.Write(k)
		b.WriteByte(':')
		b.Write(value)
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("%s: %w", f.metaFile, err)
	}
	if n > 0 {
		b.WriteByte(',')
	}
	b.WriteString(`"simulations":[`)
	for i, p := range f.simFiles {
		s, err := os.ReadFile(p)
		if err != nil {
			return nil, fmt.Errorf("read results: %w", err)
		}
		if i > 0 {
			b.WriteByte(',')
		}
		b.Write(bytes.TrimSpace(s))
	}
	b.WriteString("]}")
	var ind bytes.Buffer
	if err := json.Indent(&ind, b.Bytes(), "", "  "); err != nil {
		return nil, fmt.Errorf("join τ²-bench results: %w", err)
	}
	ind.WriteByte('\n')
	return ind.Bytes(), nil
}
