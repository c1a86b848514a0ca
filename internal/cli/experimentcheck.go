package cli

import (
	"errors"
	"fmt"
	"io/fs"
	"slices"

	"github.com/ledgerbench/ledgerbench/internal/agents"
	"github.com/ledgerbench/ledgerbench/internal/experiment"
	"github.com/ledgerbench/ledgerbench/internal/llm"
	"github.com/ledgerbench/ledgerbench/internal/runplan"
)

// checkCells is the dry run's validation of every cell beyond planning its
// tasks: the agent exists, each backbone (agent, user, judge, resolved as a
// run resolves them) is offline or named in the backbones file, and its
// API-key variable is set. Problems are listed per cell and fail the dry
// run (exit 3). It then estimates each cell's cost from the backbones'
// prices and the domain's typical usage per simulation.
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
	var problems []string
	for _, c := range cfg.Cells() {
		if !slices.Contains(agents.AgentNames(), c.Agent) {
			problems = append(problems, fmt.Sprintf("%s: unknown agent %q", c.ID(), c.Agent))
		}
		user, judge := cellBackbones(c, file, bbs)
		for _, role := range []struct{ what, name string }{{"backbone", c.Backbone}, {"user backbone", user}, {"judge", judge}} {
			if role.name == "" || role.name == agents.NoJudge || runplan.IsOffline(role.name) {
				continue
			}
			if bbs == nil {
				problems = append(problems, fmt.Sprintf("%s: %s %s: no backbones file %s", c.ID(), role.what, role.name, file))
				continue
			}
			b, err := bbs.Backbone(role.name)
			if err != nil {
				problems = append(problems, fmt.Sprintf("%s: %s: %v", c.ID(), role.what, err))
				continue
			}
			if _, err := b.APIKey(lookup); err != nil {
				problems = append(problems, fmt.Sprintf("%s: %s: %v", c.ID(), role.what, err))
			}
		}
	}
	for _, p := range problems {
		fmt.Fprintln(s.ErrOut, "cannot run:", p)
	}
	writeEstimates(s, cfg, res, file, bbs)
	if len(problems) > 0 {
		return fmt.Errorf("%w: dry run: %d problem(s) in the grid's cells (listed above)", ErrFailed, len(problems))
	}
	fmt.Fprintf(s.ErrOut, "dry run: every cell's agent and backbones check out; nothing was written\n")
	return nil
}

// cellBackbones are a cell's user and judge backbones as its run would
// resolve them.
func cellBackbones(c experiment.Cell, file string, bbs *llm.Config) (user, judge string) {
	o := runplan.Options{Backbone: c.Backbone, UserBackbone: c.UserBackbone, BackbonesFile: file}
	switch c.Judge {
	case agents.NoJudge:
		o.NoJudge = true
	default:
		o.JudgeBackbone = c.Judge
	}
	user, judge = runplan.DefaultBackbones(o, bbs)
	if user == "" {
		user = c.User()
	}
	return user, judge
}

// writeEstimates prints each cell's estimated cost: the simulations it
// still has to run × the agent's and the user's prices applied to the
// domain's typical usage per simulation (experiment.TypicalUsage), and the
// basis of each domain's figures.
func writeEstimates(s *Streams, cfg *experiment.Config, res *experiment.Result, file string, bbs *llm.Config) {
	status := map[string]experiment.Status{}
	if res != nil {
		for _, st := range res.Cells {
			status[st.ID] = st
		}
	}
	price := func(name string) (llm.Price, bool) {
		if runplan.IsOffline(name) {
			return llm.Price{}, true // no model: nothing to pay
		}
		if bbs == nil {
			return llm.Price{}, false
		}
		b, err := bbs.Backbone(name)
		return b.Price, err == nil
	}
	total := 0.0
	var basis []string
	for _, c := range cfg.Cells() {
		st, ok := status[c.ID()]
		if !ok || st.State == experiment.Failed {
			continue
		}
		n := max(st.Expected-st.Scored, 0)
		typ := experiment.TypicalUsage(c.Domain)
		if b := c.Domain + ": " + typ.Basis; !slices.Contains(basis, b) {
			basis = append(basis, b)
		}
		user, _ := cellBackbones(c, file, bbs)
		ap, aok := price(c.Backbone)
		up, uok := price(user)
		if !aok || !uok {
			fmt.Fprintf(s.ErrOut, "estimate: %-50s %d simulations to run; no price (a backbone is not in %s)\n", c.ID(), n, file)
			continue
		}
		agent, usr := ap.Cost(typ.Agent), up.Cost(typ.User)
		cell := float64(n) * (agent + usr)
		total += cell
		fmt.Fprintf(s.ErrOut, "estimate: %-50s %d simulations to run × ($%.4f agent + $%.4f user) ≈ $%.2f\n", c.ID(), n, agent, usr, cell)
	}
	fmt.Fprintf(s.ErrOut, "estimate: ≈ $%.2f in all (an estimate: prices of %s × typical tokens per simulation; judge calls not included)\n", total, file)
	for _, b := range basis {
		fmt.Fprintf(s.ErrOut, "estimate basis %s\n", b)
	}
}
