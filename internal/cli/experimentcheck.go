package cli

import (
	"errors"
	"fmt"
	"io/fs"
	"slices"

	"github.com/ledgerbench/ledgerbench/internal/engine/llm"
	"github.com/ledgerbench/ledgerbench/internal/output/experiment"
)

// checkCells is the dry run's account of what planning cannot see
// (experiment.Check: agents, backbones, API-key variables), listed per cell
// and failing the dry run (exit 3), and of each cell's estimated cost
// (experiment.Estimates).
func checkCells(s *Streams, cfg *experiment.Config, res *experiment.Result) error {
	file := cfg.BackbonesFile
	if file == "" {
		file = defaultBackbonesFile
	}
	bbs, err := llm.Load(file)
	if err != nil && !(errors.Is(err, fs.ErrNotExist) && cfg.BackbonesFile == "") {
		return err
	}
	lookup := func(k string) (string, bool) { v := s.Getenv(k); return v, v != "" }
	problems := experiment.Check(cfg, file, bbs, lookup)
	for _, p := range problems {
		fmt.Fprintln(s.ErrOut, "cannot run:", p)
	}
	writeEstimates(s, experiment.Estimates(cfg, res, file, bbs), file)
	if len(problems) > 0 {
		return fmt.Errorf("%w: dry run: %d problem(s) in the grid's cells (listed above)", ErrFailed, len(problems))
	}
	fmt.Fprintf(s.ErrOut, "dry run: every cell's agent and backbones check out; nothing was written\n")
	return nil
}

func writeEstimates(s *Streams, est []experiment.Estimate, file string) {
	total := 0.0
	var basis []string
	for _, e := range est {
		if b := e.Cell.Domain + ": " + e.Basis; !slices.Contains(basis, b) {
			basis = append(basis, b)
		}
		if !e.Priced {
			fmt.Fprintf(s.ErrOut, "estimate: %-50s %d simulations to run; no price (a backbone is not in %s)\n", e.Cell.ID(), e.Simulations, file)
			continue
		}
		total += e.Total()
		if e.UserUnpriced {
			fmt.Fprintf(s.ErrOut, "estimate: %-50s %d simulations to run × $%.4f agent ≈ $%.2f (the steering endpoint's user calls have no price: not included)\n", e.Cell.ID(), e.Simulations, e.Agent, e.Total())
			continue
		}
		fmt.Fprintf(s.ErrOut, "estimate: %-50s %d simulations to run × ($%.4f agent + $%.4f user) ≈ $%.2f\n", e.Cell.ID(), e.Simulations, e.Agent, e.User, e.Total())
	}
	fmt.Fprintf(s.ErrOut, "estimate: ≈ $%.2f in all (an estimate: prices of %s × typical tokens per simulation; judge calls not included)\n", total, file)
	for _, b := range basis {
		fmt.Fprintf(s.ErrOut, "estimate basis %s\n", b)
	}
}
