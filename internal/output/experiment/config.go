// Package experiment runs a grid of runs — domains × agents × backbones ×
// user backbones, each with its trials and task selection — under
// concurrency and budget limits, one run directory per cell, and then writes
// the report over every cell.
//
// It is resumable: a cell whose run directory already holds every
// (task, trial) is skipped, a partial one is continued, and budgets count
// what the experiment's run directories already hold. The runs themselves are
// made by a RunFunc (the CLI passes the one behind `ledgerbench run`).
package experiment

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"

	"github.com/ledgerbench/ledgerbench/internal/bench/domains"
	"github.com/ledgerbench/ledgerbench/internal/core/errext"
	"github.com/ledgerbench/ledgerbench/internal/core/strictyaml"
	"github.com/ledgerbench/ledgerbench/internal/engine/usersim"
)

// Config is an experiment file. Unknown keys are errors.
type Config struct {
	// Name labels the experiment in its outputs (default: the file's name
	// without its extension, "experiment" for a document without a file).
	Name string `yaml:"name"`
	// Out is the experiment directory: run directories go under Out/runs,
	// the report under Out/report. A relative path is taken from the
	// working directory.
	Out string `yaml:"out"`
	// BackbonesFile is the backbones file for model backbones (default
	// backbones.yaml; offline backbones need none).
	BackbonesFile string `yaml:"backbones_file"`
	// Trials per task, Seed (master seed), Split (task split, "" = the
	// domain's default), Limit (first N tasks, 0 = all) and TaskIDs are the
	// defaults of every block.
	Trials  int      `yaml:"trials"`
	Seed    int64    `yaml:"seed"`
	Split   string   `yaml:"split"`
	Limit   int      `yaml:"limit"`
	TaskIDs []string `yaml:"task_ids"`
	// Splits overrides the split per domain.
	Splits map[string]string `yaml:"splits"`
	// MaxSteps and MaxErrors bound each simulation (defaults 200 and 10).
	MaxSteps  int `yaml:"max_steps"`
	MaxErrors int `yaml:"max_errors"`
	// Judge is the NL-assertion judge backbone ("" = the backbones file's
	// judge; "none" = no judge, reports say so).
	Judge string `yaml:"judge"`
	// Concurrency is the number of simulations a cell runs at once;
	// ParallelCells the number of cells running at once (default 1).
	Concurrency   int `yaml:"concurrency"`
	ParallelCells int `yaml:"parallel_cells"`
	// MaxCost (USD, agent + user + judge) and MaxSimulations cap the whole
	// experiment, counting what its run directories already hold; 0 = no
	// cap. A cell that would take the simulation count over the cap is not
	// started; a cell running when the cost cap is reached is stopped (its
	// finished simulations are kept and a later run continues it).
	MaxCost        float64 `yaml:"max_cost"`
	MaxSimulations int     `yaml:"max_simulations"`
	// Baseline and Treatment are the agents the report compares (default
	// baseline and ledger).
	Baseline  string `yaml:"baseline"`
	Treatment string `yaml:"treatment"`
	// Grid lists blocks; the experiment is the union of their cells.
	Grid []Block `yaml:"grid"`
}

// Block is one cross product of the grid. Trials, Split, Limit and TaskIDs
// override the experiment's defaults for the block's cells.
type Block struct {
	Domains       []string `yaml:"domains"`
	Agents        []string `yaml:"agents"`
	Backbones     []string `yaml:"backbones"`
	UserBackbones []string `yaml:"user_backbones"`
	// Traits lists τ-Trait user traits, one cell per entry: "none" (a
	// τ-Trait user without traits) or a trait dict (name=level pairs or a
	// JSON object, as run's --traits). Empty: the runs' default, no traits.
	Traits  []string `yaml:"traits"`
	Trials  int      `yaml:"trials"`
	Split   *string  `yaml:"split"`
	Limit   *int     `yaml:"limit"`
	TaskIDs []string `yaml:"task_ids"`
	// RetrievalConfigs are banking_knowledge's retrieval variants, one
	// cell each (none: the domain's default, alltools);
	// RetrievalConfigKwargs their overrides (top_k, …) for every cell of
	// the block.
	RetrievalConfigs      []string       `yaml:"retrieval_configs"`
	RetrievalConfigKwargs map[string]any `yaml:"retrieval_config_kwargs"`
}

// Defaults.
const (
	DefaultTrials    = 4
	DefaultSeed      = 300
	DefaultMaxSteps  = 200
	DefaultMaxErrors = 10
)

// Load reads an experiment file strictly, fills defaults and validates it.
// Every problem of the file is reported at once with its line
// ("FILE:LINE: …", a usage error); a file that cannot be read is not a
// usage error.
func Load(path string) (*Config, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("read experiment: %w", err)
	}
	return parse(b, path)
}

// Parse decodes an experiment document (problems as "line N: …").
func Parse(b []byte) (*Config, error) { return parse(b, "") }

func parse(b []byte, path string) (*Config, error) {
	var c Config
	lines, probs := strictyaml.Decode(b, &c, strictyaml.Options{})
	if c.Name == "" && path != "" {
		c.Name = strings.TrimSuffix(filepath.Base(path), filepath.Ext(path))
	}
	if !probs.Covers(nil) {
		c.fill()
		for _, p := range c.problems() {
			if !probs.Covers(p.Path) {
				p.Line = lines.Of(p.Path...)
				probs = append(probs, p)
			}
		}
	}
	if err := probs.Err(path); err != nil {
		return nil, errext.Usage(err)
	}
	return &c, nil
}

func (c *Config) fill() {
	if c.Trials == 0 {
		c.Trials = DefaultTrials
	}
	if c.Seed == 0 {
		c.Seed = DefaultSeed
	}
	if c.MaxSteps == 0 {
		c.MaxSteps = DefaultMaxSteps
	}
	if c.MaxErrors == 0 {
		c.MaxErrors = DefaultMaxErrors
	}
	if c.Concurrency == 0 {
		c.Concurrency = 4
	}
	if c.ParallelCells == 0 {
		c.ParallelCells = 1
	}
	if c.Baseline == "" {
		c.Baseline = "baseline"
	}
	if c.Treatment == "" {
		c.Treatment = "ledger"
	}
	if c.Name == "" {
		c.Name = "experiment"
	}
}

// Validate reports every problem at once.
func (c *Config) Validate() error {
	var errs []error
	for _, p := range c.problems() {
		errs = append(errs, errors.New(p.Msg))
	}
	return errors.Join(errs...)
}

// problems are Validate's, each with the key it is about.
func (c *Config) problems() []strictyaml.Problem {
	var out []strictyaml.Problem
	bad := func(path strictyaml.Path, format string, args ...any) {
		out = append(out, strictyaml.Problem{Path: path, Msg: fmt.Sprintf(format, args...)})
	}
	if c.Out == "" {
		bad(strictyaml.Path{"out"}, "out: the experiment directory is required")
	}
	for _, f := range []struct {
		key string
		n   int
	}{{"trials", c.Trials}, {"concurrency", c.Concurrency}, {"parallel_cells", c.ParallelCells}, {"max_steps", c.MaxSteps}, {"max_errors", c.MaxErrors}} {
		if f.n < 1 {
			bad(strictyaml.Path{f.key}, "%s must be positive (got %d)", f.key, f.n)
		}
	}
	if c.Limit < 0 {
		bad(strictyaml.Path{"limit"}, "limit must not be negative (got %d)", c.Limit)
	}
	if c.MaxCost < 0 {
		bad(strictyaml.Path{"max_cost"}, "max_cost must not be negative (got %v)", c.MaxCost)
	}
	if c.MaxSimulations < 0 {
		bad(strictyaml.Path{"max_simulations"}, "max_simulations must not be negative (got %d)", c.MaxSimulations)
	}
	if len(c.Grid) == 0 {
		bad(strictyaml.Path{"grid"}, "grid: at least one block is required")
	}
	for i, b := range c.Grid {
		at := func(key string) strictyaml.Path { return strictyaml.Path{"grid", strconv.Itoa(i), key} }
		var missing []string
		for _, d := range []struct {
			key  string
			list []string
		}{{"domains", b.Domains}, {"agents", b.Agents}, {"backbones", b.Backbones}} {
			if len(d.list) == 0 {
				missing = append(missing, d.key)
			}
		}
		if len(missing) > 0 {
			bad(at(missing[0]), "grid[%d]: %s required", i, strings.Join(missing, ", "))
		}
		if b.Trials < 0 {
			bad(at("trials"), "grid[%d]: trials must not be negative (got %d)", i, b.Trials)
		}
		if b.Limit != nil && *b.Limit < 0 {
			bad(at("limit"), "grid[%d]: limit must not be negative (got %d)", i, *b.Limit)
		}
		if len(b.RetrievalConfigs) > 0 || len(b.RetrievalConfigKwargs) > 0 {
			kw, err := b.kwargs()
			if err != nil {
				bad(at("retrieval_config_kwargs"), "grid[%d]: retrieval_config_kwargs: %v", i, err)
			}
			for _, d := range b.Domains {
				for _, rc := range orDefault(b.RetrievalConfigs) {
					if _, err := domains.RetrievalOptions(d, rc, string(kw)); err != nil {
						bad(at("retrieval_configs"), "grid[%d]: %v", i, err)
					}
				}
			}
		}
		for j, tr := range b.Traits {
			if tr == NoTraits {
				continue
			}
			if t, err := usersim.ParseTraits(tr); err != nil {
				bad(strictyaml.Path{"grid", strconv.Itoa(i), "traits", strconv.Itoa(j)}, "grid[%d]: traits %q: %v", i, tr, err)
			} else if len(t) == 0 {
				bad(strictyaml.Path{"grid", strconv.Itoa(i), "traits", strconv.Itoa(j)}, "grid[%d]: traits %q: no traits (write %q)", i, tr, NoTraits)
			}
		}
		for _, d := range []struct {
			key  string
			list []string
		}{{"domains", b.Domains}, {"agents", b.Agents}, {"backbones", b.Backbones}, {"user_backbones", b.UserBackbones}, {"retrieval_configs", b.RetrievalConfigs}} {
			for j, v := range d.list {
				if strings.TrimSpace(v) == "" {
					bad(at(d.key), "grid[%d]: %s[%d] is an empty name", i, d.key, j)
				}
			}
		}
	}
	if len(out) == 0 {
		seen := map[string]string{}
		for _, cell := range c.Cells() {
			if prev, dup := seen[cell.Dir]; dup {
				if prev == cell.ID() {
					bad(strictyaml.Path{"grid"}, "cell %s appears twice in the grid", cell.ID())
				} else {
					bad(strictyaml.Path{"grid"}, "cells %s and %s would share the run directory %s", prev, cell.ID(), cell.Dir)
				}
				continue
			}
			seen[cell.Dir] = cell.ID()
		}
	}
	return out
}

// kwargs is the block's retrieval_config_kwargs as JSON ("" for none).
func (b Block) kwargs() (json.RawMessage, error) {
	if len(b.RetrievalConfigKwargs) == 0 {
		return nil, nil
	}
	return json.Marshal(b.RetrievalConfigKwargs)
}

// orDefault is the list, or one empty name (the default) for none.
func orDefault(names []string) []string {
	if len(names) == 0 {
		return []string{""}
	}
	return names
}

// Cell is one run of the grid.
type Cell struct {
	Domain       string `json:"domain"`
	Agent        string `json:"agent"`
	Backbone     string `json:"backbone"`
	UserBackbone string `json:"user_backbone,omitempty"` // "" = the agent's backbone
	// Traits are the τ-Trait user's traits ("" the run's default, NoTraits
	// none).
	Traits    string   `json:"traits,omitempty"`
	Trials    int      `json:"trials"`
	Seed      int64    `json:"seed"`
	Split     string   `json:"split,omitempty"`
	Limit     int      `json:"limit,omitempty"`
	TaskIDs   []string `json:"task_ids,omitempty"`
	MaxSteps  int      `json:"max_steps"`
	MaxErrors int      `json:"max_errors"`
	Judge     string   `json:"judge,omitempty"`
	// RetrievalConfig and RetrievalConfigKwargs are banking_knowledge's
	// retrieval variant ("": the default) and its overrides.
	RetrievalConfig       string          `json:"retrieval_config,omitempty"`
	RetrievalConfigKwargs json.RawMessage `json:"retrieval_config_kwargs,omitempty"`
	// Dir is the cell's run directory.
	Dir string `json:"dir"`
}

// NoTraits in a block's traits is a τ-Trait user without traits.
const NoTraits = "none"

// ID names the cell: domain/agent/backbone[/user=U][/traits=T][/retrieval=R].
func (c Cell) ID() string {
	s := c.Domain + "/" + c.Agent + "/" + c.Backbone
	if c.UserBackbone != "" {
		s += "/user=" + c.UserBackbone
	}
	if c.Traits != "" {
		s += "/traits=" + c.Traits
	}
	if c.RetrievalConfig != "" {
		s += "/retrieval=" + c.RetrievalConfig
	}
	return s
}

// RunTraits are the traits the cell's run is given (run's --traits).
func (c Cell) RunTraits() string {
	if c.Traits == NoTraits {
		return ""
	}
	return c.Traits
}

// User is the effective user backbone.
func (c Cell) User() string {
	if c.UserBackbone == "" {
		return c.Backbone
	}
	return c.UserBackbone
}

// Cells expands the grid in block order (domains, then backbones, user
// backbones, retrieval configs and agents), dropping repeats.
func (c *Config) Cells() []Cell {
	var out []Cell
	seen := map[string]bool{}
	for _, b := range c.Grid {
		users := b.UserBackbones
		if len(users) == 0 {
			users = []string{""}
		}
		traits := b.Traits
		if len(traits) == 0 {
			traits = []string{""}
		}
		kw, _ := b.kwargs() // checked by Validate
		for _, d := range b.Domains {
			for _, bb := range b.Backbones {
				for _, u := range users {
					for _, rc := range orDefault(b.RetrievalConfigs) {
						for _, a := range b.Agents {
							for _, tr := range traits {
								cell := Cell{Domain: d, Agent: a, Backbone: bb, UserBackbone: u, Traits: canonical(tr), Trials: c.Trials, Seed: c.Seed,
									Split: c.Split, Limit: c.Limit, TaskIDs: slices.Clone(c.TaskIDs), MaxSteps: c.MaxSteps, MaxErrors: c.MaxErrors, Judge: c.Judge,
									RetrievalConfig: rc, RetrievalConfigKwargs: kw}
								if s, ok := c.Splits[d]; ok {
									cell.Split = s
								}
								if b.Trials > 0 {
									cell.Trials = b.Trials
								}
								if b.Split != nil {
									cell.Split = *b.Split
								}
								if b.Limit != nil {
									cell.Limit = *b.Limit
								}
								if b.TaskIDs != nil {
									cell.TaskIDs = slices.Clone(b.TaskIDs)
								}
								if u == bb {
									cell.UserBackbone = ""
								}
								key := cell.ID()
								if seen[key] {
									continue
								}
								seen[key] = true
								cell.Dir = filepath.Join(c.Out, "runs", cellDir(cell))
								out = append(out, cell)
							}
						}
					}
				}
			}
		}
	}
	return out
}

// canonical writes a trait dict as name=level pairs in τ-Trait's order
// (NoTraits and what does not parse stay).
func canonical(traits string) string {
	if traits == "" || traits == NoTraits {
		return traits
	}
	t, err := usersim.ParseTraits(traits)
	if err != nil {
		return traits
	}
	return t.String()
}

// cellDir is the run directory name of a cell.
func cellDir(c Cell) string {
	s := safe(c.Domain) + "_" + safe(c.Agent) + "_" + safe(c.Backbone)
	if c.UserBackbone != "" {
		s += "_user-" + safe(c.UserBackbone)
	}
	if c.Traits != "" {
		s += "_traits-" + safe(c.Traits)
	}
	if c.RetrievalConfig != "" {
		s += "_retrieval-" + safe(c.RetrievalConfig)
	}
	return s
}

func safe(s string) string {
	var b strings.Builder
	for _, r := range s {
		switch {
		case r >= 'a' && r <= 'z', r >= 'A' && r <= 'Z', r >= '0' && r <= '9', r == '.', r == '-':
			b.WriteRune(r)
		default:
			b.WriteByte('-')
		}
	}
	return b.String()
}
