package cli

import (
	"fmt"
	"io"

	"github.com/ledgerbench/ledgerbench/internal/bench/results"
	"github.com/ledgerbench/ledgerbench/internal/core/errext"
	"github.com/ledgerbench/ledgerbench/internal/engine/offline"
	"github.com/ledgerbench/ledgerbench/internal/source/tasks"
)

// checkReplay refuses, before anything starts, a replay:FILE run whose
// recording is of another domain or lacks a selected (task, trial): the
// run would otherwise fail unit by unit.
//
// It warns on errOut when the recording embeds selected tasks that differ
// from the pinned ones: the run scores against the pinned tasks, so its
// rewards can differ from the recorded ones.
func checkReplay(errOut io.Writer, backbone, domain string, sel []tasks.Task, trials int) error {
	b, ok, err := offline.Parse(backbone)
	if err != nil || !ok || b.Kind != offline.Replay {
		return nil // bad names are the backbone builder's to report
	}
	if f, err := results.ReadTau2(b.File); err == nil {
		if m, err := f.Meta(); err == nil && m.Domain != "" && m.Domain != domain {
			return errext.Usagef("--backbone %s: the recording is of domain %s, not %s", backbone, m.Domain, domain)
		}
		warnDrift(errOut, backbone, domain, f, sel)
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

// warnDrift says which selected tasks the recording embeds in another
// version than the pinned one.
func warnDrift(errOut io.Writer, backbone, domain string, f *results.Tau2File, sel []tasks.Task) {
	embedded, err := f.Tau2Tasks(domain)
	if err != nil {
		fmt.Fprintf(errOut, "warning: --backbone %s: the recording's embedded tasks are unreadable (%v); it is replayed against the pinned tasks\n", backbone, err)
		return
	}
	pinned := map[string]*tasks.Task{}
	for i := range sel {
		pinned[sel[i].ID] = &sel[i]
	}
	d, err := tasks.CompareEmbedded(embedded, func(id string) *tasks.Task { return pinned[id] }, nil)
	if err != nil || len(d.IDs) == 0 {
		return
	}
	fmt.Fprintf(errOut, "warning: --backbone %s: the recording's %s from the pinned ones; the run scores against the pinned tasks, so its rewards can differ from the recorded ones\n", backbone, d)
}

func list10(s []string) string {
	if len(s) > 10 {
		return fmt.Sprintf("%v … %d more", s[:10], len(s)-10)
	}
	return fmt.Sprint(s)
}
