package cli

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"os"
	"slices"

	"github.com/ledgerbench/ledgerbench/internal/bench/envs"
	"github.com/ledgerbench/ledgerbench/internal/bench/results"
	"github.com/ledgerbench/ledgerbench/internal/core/errext"
	"github.com/ledgerbench/ledgerbench/internal/engine/offline"
	"github.com/ledgerbench/ledgerbench/internal/score/rescore"
	"github.com/ledgerbench/ledgerbench/internal/source/known"
	"github.com/ledgerbench/ledgerbench/internal/source/tasks"
)

// checkReplay refuses, before anything starts, a replay:FILE run whose
// recording is of another domain or lacks a selected (task, trial): the
// run would otherwise fail unit by unit.
//
// It warns on errOut when the recording embeds selected tasks that differ
// from the pinned ones: the run scores against the pinned tasks, so its
// rewards can differ from the recorded ones.
//
// A τ-bench v1 / τ-Trait results list is detected as rescore detects it
// (rescore.DetectV1, domains loaded by load): a list whose recorded tasks
// match no ported domain is an error naming the entry, one of another
// domain or split (task ids index a split: telehealth's dev reuses test's
// ids) is refused, and the detection's notes are warnings.
func checkReplay(ctx context.Context, errOut io.Writer, backbone, domain, split string, sel []tasks.Task, trials int, load func(string) (envs.Domain, error)) error {
	b, ok, err := offline.Parse(backbone)
	if err != nil || !ok || b.Kind != offline.Replay {
		return nil // bad names are the backbone builder's to report
	}
	if err := checkReplayV1(ctx, errOut, backbone, b.File, domain, split, load); err != nil {
		return err
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

// checkReplayV1 is checkReplay's test of a τ-bench v1 results list (nothing
// for another file).
func checkReplayV1(ctx context.Context, errOut io.Writer, backbone, path, domain, split string, load func(string) (envs.Domain, error)) error {
	raw, err := os.ReadFile(path)
	if err != nil {
		return nil // LoadRecording reports it
	}
	if t := bytes.TrimSpace(raw); len(t) == 0 || t[0] != '[' {
		return nil
	}
	recs, err := results.ReadV1(path, results.V1Labels{})
	if err != nil || len(recs) == 0 {
		return nil // LoadRecording reports it
	}
	if d, ok := known.Lookup(domain); !ok || !d.Benchmark.V1() {
		return errext.Usagef("--backbone %s: a τ-bench v1 results list replays on τ-Trait's and τ-bench v1's domains, not %s", backbone, domain)
	}
	list, err := results.ReadV1List(path)
	if err != nil {
		return err
	}
	det, _, err := rescore.DetectV1(ctx, path, recs[0].Domain, list, load)
	if err != nil {
		return err
	}
	if det.Domain != domain && !slices.Contains(det.Alike, domain) {
		return errext.Usagef("--backbone %s: the recording is of domain %s, not %s", backbone, det.Domain, domain)
	}
	if det.Split != split {
		return errext.Usagef("--backbone %s: the recording is of %s's %s split, not %s (--split %s)", backbone, domain, det.Split, split, det.Split)
	}
	for _, n := range det.Notes {
		fmt.Fprintf(errOut, "warning: --backbone %s: %s\n", backbone, n)
	}
	return nil
}
