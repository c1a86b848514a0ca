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
// tasks: the agent exists, each backbone (agent, user, judge) is offline or
// named in the backbones file, and its API-key variable is set. Problems
// are listed per cell and fail the dry run (exit 3).
func checkCells(s *Streams, cfg *experiment.Config) error {
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
		judge := c.Judge
		if judge == "" && bbs != nil {
			judge = bbs.Judge
		}
		for _, role := range []struct{ what, name string }{{"backbone", c.Backbone}, {"user backbone", c.User()}, {"judge", judge}} {
			if role.name == "" || role.name == "none" || runplan.IsOffline(role.name) {
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
	if len(problems) > 0 {
		return fmt.Errorf("%w: dry run: %d problem(s) in the grid's cells (listed above)", ErrFailed, len(problems))
	}
	fmt.Fprintf(s.ErrOut, "dry run: every cell's agent and backbones check out; nothing was written\n")
	return nil
}
