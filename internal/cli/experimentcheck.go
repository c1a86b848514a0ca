package cli

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"slices"
	"strings"

	"github.com/ledgerbench/ledgerbench/internal/bench/knowledge"
	"github.com/ledgerbench/ledgerbench/internal/bench/knowledge/sandbox"
	"github.com/ledgerbench/ledgerbench/internal/engine/llm"
	"github.com/ledgerbench/ledgerbench/internal/output/experiment"
)

// checkCells is the dry run's account of what planning cannot see
// (experiment.Check: agents, backbones, API-key variables;
// experiment.CheckRetrieval: banking_knowledge's embeddings entries, the
// reranker's backbone, the sandbox), listed per cell
// and failing the dry run (exit 3), and of each cell's estimated cost
// (experiment.Estimates). The cells res could not plan, which Execute has
// listed, fail it too: its one-line error counts both.
func checkCells(ctx context.Context, s *Streams, cfg *experiment.Config, res *experiment.Result, dataDir string, needsJudge func(experiment.Cell) bool) error {
	unplanned := 0
	for _, c := range res.Cells {
		if c.State == experiment.Failed {
			unplanned++
		}
	}
	file, bbs, err := loadExperimentBackbones(cfg)
	if err != nil {
		if unplanned > 0 {
			return fmt.Errorf("%w: dry run: %d cell(s) cannot be planned (listed above); %w", ErrFailed, unplanned, err)
		}
		return err
	}
	lookup := func(k string) (string, bool) { v := s.Getenv(k); return v, v != "" }
	problems := experiment.Check(cfg, file, bbs, lookup, needsJudge)
	problems = append(problems, experiment.CheckRetrieval(cfg, file, bbs, lookup, experiment.RetrievalEnv{
		RerankerModel: func() (string, error) {
			src, err := knowledge.LoadSource(dataDir)
			if err != nil {
				return "", err
			}
			return src.RerankerModel(), nil
		},
		Sandbox: func() error { return sandbox.Check(ctx, sandbox.Options{}) },
	})...)
	for _, p := range problems {
		fmt.Fprintln(s.ErrOut, "cannot run:", p)
	}
	total := writeEstimates(s, experiment.Estimates(cfg, res, file, bbs), file)
	writeBudget(s, cfg.MaxCost, total)
	writeUnbounded(s, cfg, res, file, bbs)
	var failed []string
	if unplanned > 0 {
		failed = append(failed, fmt.Sprintf("%d cell(s) cannot be planned", unplanned))
	}
	if len(problems) > 0 {
		failed = append(failed, fmt.Sprintf("%d problem(s) in the grid's cells", len(problems)))
	}
	if len(failed) > 0 {
		return fmt.Errorf("%w: dry run: %s (listed above)", ErrFailed, strings.Join(failed, " and "))
	}
	fmt.Fprintf(s.ErrOut, "dry run: every cell's agent and backbones check out; nothing was written\n")
	return nil
}

// writeEstimates prints each cell's estimate; it returns the total of the
// priced cells.
func writeEstimates(s *Streams, est []experiment.Estimate, file string) (total float64) {
	var basis []string
	for _, e := range est {
		if b := e.Cell.Domain + ": " + e.Basis; !slices.Contains(basis, b) {
			basis = append(basis, b)
		}
		if !e.Priced {
			fmt.Fprintf(s.ErrOut, "estimate: %-50s %d simulations to run; cost unknown (no price for %s in %s)\n", e.Cell.ID(), e.Simulations, strings.Join(e.Unpriced, ", "), file)
			continue
		}
		total += e.Total()
		if e.UserUnpriced {
			fmt.Fprintf(s.ErrOut, "estimate: %-50s %d simulations to run × $%.4f agent ≈ $%.2f (the steering endpoint's user calls have no price: not included)\n", e.Cell.ID(), e.Simulations, e.Agent, e.Total())
			continue
		}
		fmt.Fprintf(s.ErrOut, "estimate: %-50s %d simulations to run × ($%.4f agent + $%.4f user) ≈ $%.2f\n", e.Cell.ID(), e.Simulations, e.Agent, e.User, e.Total())
	}
	fmt.Fprintf(s.ErrOut, "estimate: ≈ $%.2f in all (an estimate: prices of %s × typical tokens per simulation, %.0f%% of prompt tokens assumed served from the provider's cache at cached_input; judge calls, banking_knowledge's embeddings and reranker calls and cells of unknown cost not included)\n",
		total, file, 100*experiment.AssumedCacheShare)
	for _, b := range basis {
		fmt.Fprintf(s.ErrOut, "estimate basis %s\n", b)
	}
	return total
}

// writeBudget compares the estimate with max_cost (--max-cost); the cells
// of unknown cost are named by writeUnbounded.
func writeBudget(s *Streams, maxCost, total float64) {
	if maxCost <= 0 {
		return
	}
	switch {
	case total > maxCost:
		fmt.Fprintf(s.ErrOut, "budget: the estimate ≈ $%.2f exceeds max_cost $%.2f: the experiment would stop once $%.2f is spent (running cells drain, cells not started stay so; exit 4)\n", total, maxCost, maxCost)
	default:
		fmt.Fprintf(s.ErrOut, "budget: the estimate ≈ $%.2f is within max_cost $%.2f\n", total, maxCost)
	}
}

// writeUnbounded says which cells a cost cap (max_cost, --max-cost) cannot
// bound: their backbones have no price, so what they spend reads $0. Given
// the plan (res), only the cells that would run are named.
func writeUnbounded(s *Streams, cfg *experiment.Config, res *experiment.Result, file string, bbs *llm.Config) {
	cells := experiment.UnboundedCells(cfg, res, file, bbs)
	if len(cells) == 0 {
		return
	}
	capped := "a cost cap (max_cost, --max-cost)"
	if cfg.MaxCost > 0 {
		capped = fmt.Sprintf("max_cost $%.2f", cfg.MaxCost)
	}
	fmt.Fprintf(s.ErrOut, "budget: %s cannot bound %d cell(s) with unknown prices (what they spend counts as $0; set price: in %s):\n", capped, len(cells), file)
	for _, c := range cells {
		fmt.Fprintf(s.ErrOut, "  %s\n", c)
	}
}

// loadExperimentBackbones reads the grid's backbones file; the default file
// may be absent (a grid of offline backbones), and then bbs is nil.
func loadExperimentBackbones(cfg *experiment.Config) (file string, bbs *llm.Config, err error) {
	file = cfg.BackbonesFile
	if file == "" {
		file = defaultBackbonesFile
	}
	bbs, err = llm.Load(file)
	if err != nil && errors.Is(err, fs.ErrNotExist) && cfg.BackbonesFile == "" {
		return file, nil, nil
	}
	return file, bbs, err
}
