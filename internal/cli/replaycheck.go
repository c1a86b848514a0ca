package cli

import (
	"fmt"

	"github.com/ledgerbench/ledgerbench/internal/bench/results"
	"github.com/ledgerbench/ledgerbench/internal/core/errext"
	"github.com/ledgerbench/ledgerbench/internal/engine/offline"
	"github.com/ledgerbench/ledgerbench/internal/source/tasks"
)

// checkReplay refuses, before anything starts, a replay:FILE run whose
// recording is of another domain or lacks a selected (task, trial): the
// run would otherwise fail unit by unit.
func checkReplay(backbone, domain string, sel []tasks.Task, trials int) error {
	b, ok, err := offline.Parse(backbone)
	if err != nil || !ok || b.Kind != offline.Replay {
		return nil // bad names are the backbone builder's to report
	}
	if f, err := results.ReadTau2(b.File); err == nil {
		if m, err := f.Meta(); err == nil && m.Domain != "" && m.Domain != domain {
			return errext.Usagef("--backbone %s: the recording is of domain %s, not %s", backbone, m.Domain, domain)
		}
	}
	rec, err := offline.LoadRecording(b.File)
	if err != nil {
		return err
	}
	var missing []string
	for _, t := range sel {
		for trial := range trials {
			if _, err := rec.Agent(t.ID, trial); err != nil {
				missing = append(missing, fmt.Sprintf("%s#%d", t.ID, trial))
			}
		}
	}
	if len(missing) > 0 {
		return errext.Usagef("--backbone %s: %d of the %d selected simulations are not recorded (task#trial: %s); choose --task-ids/--trials the recording has",
			backbone, len(missing), len(sel)*trials, list10(missing))
	}
	return nil
}

func list10(s []string) string {
	if len(s) > 10 {
		return fmt.Sprintf("%v … %d more", s[:10], len(s)-10)
	}
	return fmt.Sprint(s)
}
