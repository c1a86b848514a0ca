package cli

import (
	"context"
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/ledgerbench/ledgerbench/internal/score/metrics"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/ledgerbench/ledgerbench/internal/bench/domains"
	"github.com/ledgerbench/ledgerbench/internal/bench/envs"
	"github.com/ledgerbench/ledgerbench/internal/bench/envs/banking"
	"github.com/ledgerbench/ledgerbench/internal/bench/evaluator"
	"github.com/ledgerbench/ledgerbench/internal/bench/results"
	"github.com/ledgerbench/ledgerbench/internal/core/clip"
	"github.com/ledgerbench/ledgerbench/internal/core/errext"
	"github.com/ledgerbench/ledgerbench/internal/engine/agents"
	"github.com/ledgerbench/ledgerbench/internal/engine/runner"
	"github.com/ledgerbench/ledgerbench/internal/engine/runplan"
	"github.com/ledgerbench/ledgerbench/internal/output/experiment"
	"github.com/ledgerbench/ledgerbench/internal/source/tasks"
)

type runOptions struct {
	Streams *Streams
	// Options are the run's settings for the planner (the flags bind to
	// its fields; DataDir, LLM and Now are set by the command and tests).
	runplan.Options

	Quiet      bool
	MinPass    float64
	MinPassSet bool
	// RecordRequests appends every model request body to
	// DIR/requests.jsonl.
	RecordRequests bool
	// AutoReview reviews every simulation after the run (review.go).
	AutoReview autoReview

	// Set names the flags given on the command line; a run being
	// continued lends its manifest's value to the others.
	Set map[string]bool
	// progressEvery is the plain-progress interval (default 10s).
	progressEvery time.Duration
}

const defaultBackbonesFile = "backbones.yaml"

func newCmdRun(s *Streams, g *globalOptions, runF func(context.Context, *runOptions) error) *cobra.Command {
	opts := &runOptions{Streams: s}
	cmd := &cobra.Command{
		Use:   "run --domain D --backbone B [flags]",
		Short: "Run an agent on a domain's tasks and record every simulation",
		Long: `Run every (task, trial) of the selected tasks as a simulation of the agent, the
simulated user and the environment, score it with τ²-bench's evaluator, and append
its record to DIR/simulations.jsonl as soon as it ends. DIR/manifest.json records
what the run decided (data hash, tasks, agent, backbone settings without keys,
prompt hashes, seeds, limits).

Rerunning into an existing run directory (or --resume --out DIR) continues it:
only units without a record, or whose record is an infrastructure error, run.
Settings not given on the command line are taken from the manifest; settings that
differ from it are refused (a run can only be extended with more --trials).

Backbones are names from --backbones (default ./backbones.yaml), or the offline
kinds gold, sim[:stale=R,violation=R,miss=R,seed=N] and replay:FILE. Tasks scored
on NL assertions need a judge (--judge-backbone, or judge: in backbones.yaml);
--no-judge runs them unjudged and says so in the report.

Ctrl-C stops starting simulations and waits for the running ones (or --grace),
then exits with status 130; a second Ctrl-C exits at once. --min-pass P exits
with status 3 when pass^1 is below P.`,
		Example: `  ledgerbench run --domain retail --backbone gpt-4.1 --trials 4
  ledgerbench run --domain retail --backbone sim --no-judge --out runs/sim
  ledgerbench run --resume --out runs/sim
  ledgerbench run --domain airline --backbone gpt-4.1 --shard 2/4 --out runs/a2`,
		Args: noArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			dir, err := g.dataDir(s)
			if err != nil {
				return err
			}
			opts.DataDir = dir
			opts.Set = map[string]bool{}
			cmd.Flags().Visit(func(f *pflag.Flag) { opts.Set[f.Name] = true })
			opts.MinPassSet = opts.Set["min-pass"]
			if runF != nil {
				return runF(cmd.Context(), opts)
			}
			return runRun(cmd.Context(), opts)
		},
	}
	f := cmd.Flags()
	f.StringVar(&opts.Domain, "domain", "", "domain: "+strings.Join(domains.Names(), ", "))
	f.StringVar(&opts.Agent, "agent", "baseline", "agent implementation: "+strings.Join(agents.AgentNames(), ", "))
	f.StringVar(&opts.Backbone, "backbone", "", "agent backbone (a name in the backbones file, or gold, sim, replay:FILE)")
	f.StringVar(&opts.UserBackbone, "user-backbone", "", "user simulator backbone (default: τ²-bench's, gpt-4.1-2025-04-14 at temperature 0, from the backbones file; the scripted user for gold, sim and replay)")
	f.StringVar(&opts.JudgeBackbone, "judge-backbone", "", "NL-assertion judge backbone (default: judge: of the backbones file)")
	f.BoolVar(&opts.NoJudge, "no-judge", false, "run tasks scored on NL assertions without a judge (reports say so)")
	f.StringVar(&opts.BackbonesFile, "backbones", defaultBackbonesFile, "backbones file")
	f.StringVar(&opts.Split, "split", "", "task split (default: the domain's)")
	f.StringSliceVar(&opts.TaskIDs, "task-ids", nil, "only these task ids")
	f.IntVar(&opts.Limit, "limit", 0, "only the first N tasks")
	f.IntVar(&opts.Trials, "trials", 4, "trials per task")
	f.IntVar(&opts.Concurrency, "concurrency", 10, "simulations running at once")
	f.Int64Var(&opts.Seed, "seed", 300, "master seed (per-trial seeds follow τ²-bench)")
	f.IntVar(&opts.MaxSteps, "max-steps", 200, "steps before a simulation ends with max_steps")
	f.IntVar(&opts.MaxErrors, "max-errors", 10, "tool errors before a simulation ends with too_many_errors")
	f.BoolVar(&opts.AllowModifiedData, "allow-modified-data", false, allowModifiedUsage)
	f.DurationVar(&opts.Timeout, "timeout", 0, "wall-clock limit per simulation, ending it with timeout (0: none)")
	f.DurationVar(&opts.Grace, "grace", 0, "after Ctrl-C, cancel running simulations after this long (0: let them finish)")
	f.StringVar(&opts.Out, "out", "", "run directory (default runs/<time>_<domain>_<agent>_<backbone>)")
	f.BoolVar(&opts.Resume, "resume", false, "continue the run in --out (missing and infrastructure-error units only)")
	f.StringVar(&opts.Shard, "shard", "", "run only shard i of n (i/n) of the units, chosen by hash of (task, trial)")
	f.StringVar(&opts.UserStyle, "user-style", "", "user simulator: tau2, tau-trait or tau-bench (default: tau-trait for τ-Trait's domains, tau-bench for taubench-*, tau2 elsewhere)")
	f.StringVar(&opts.Traits, "traits", "", `τ-Trait user traits, "impatience=high,confusion=low" or a JSON object (impatience, confusion, skeptical, incoherence: low|medium|high)`)
	f.StringVar(&opts.Loop, "loop", "", "conversation loop: tau2 (τ²-bench's orchestrator) or tau-trait (τ-Trait's and τ-bench v1's ToolCallingAgent loop; default for their domains)")
	f.StringVar(&opts.LedgerPlacement, "ledger-placement", "", "where LedgerAgent (ledger, ledger-only) puts its ledger: system (appended to the system message; default) or tail (a system message after the history, leaving the history a cacheable prefix)")
	f.StringVar(&opts.TraitMode, "trait-mode", "", "how traits are applied: steer (τ-Trait's endpoint; --user-backbone steer), prompt-approximation (default for chat models; labelled), or ignore (as upstream does for chat models)")
	f.BoolVar(&opts.RecordRequests, "record-requests", false, "append the body of every model request (agent, user, judge) to DIR/"+requestsFile+" (no keys or headers)")
	f.StringVar(&opts.RetrievalConfig, "retrieval-config", "", retrievalConfigUsage+strings.Join(banking.VariantNames(), ", "))
	f.StringVar(&opts.RetrievalConfigKwargs, "retrieval-config-kwargs", "", retrievalKwargsUsage)
	f.StringVar(&opts.EmbeddingsCache, "embeddings-cache", "", embeddingsCacheUsage)
	f.BoolVar(&opts.Solo, "solo", false, "τ²-bench's solo mode (telecom; upstream --agent llm_agent_solo --user dummy_user): no user, the agent holds the phone tools and works from the ticket")
	f.BoolVar(&opts.EnforceProtocol, "enforce-communication-protocol", false, "end a simulation with agent_error or user_error when a message mixes text and tool calls (upstream's flag; off as upstream)")
	f.BoolVar(&opts.Quiet, "quiet", false, "no progress output")
	f.Float64Var(&opts.MinPass, "min-pass", 0, "exit with status 3 if pass^1 is below this")
	opts.AutoReview.flags(f)
	return cmd
}

// planOptions are the run's settings for the planner: what the flags
// say, what was not given left to a run being continued.
func (opts *runOptions) planOptions() runplan.Options {
	s := opts.Streams
	po := opts.Options
	po.BackbonesOptional = !opts.Set["backbones"]
	po.Inherit = func(name string) bool { return !opts.Set[name] }
	po.LoadDomain = func(name string, solo bool, do domains.Options) (envs.Domain, map[string]string, error) {
		l := func(name, root string) (envs.Domain, error) { return domains.LoadWith(name, root, do) }
		if solo {
			l = domains.LoadSolo
		}
		return loadDomain(l, name, opts.DataDir, opts.AllowModifiedData, s.ErrOut) // datacheck.go
	}
	po.CheckReplay = func(ctx context.Context, backbone, domain, split string, sel []tasks.Task, trials int) error {
		load := func(name string) (envs.Domain, error) {
			d, _, err := loadDomain(domains.Load, name, opts.DataDir, opts.AllowModifiedData, io.Discard) // datacheck.go
			return d, err
		}
		return checkReplay(ctx, s.ErrOut, backbone, domain, split, sel, trials, load) // replaycheck.go
	}
	po.Getenv = s.Getenv
	po.HarnessVersion = Version
	return po
}

func runRun(ctx context.Context, opts *runOptions) error {
	s := opts.Streams
	if opts.MinPassSet && (opts.MinPass < 0 || opts.MinPass > 1) {
		return errext.Usagef("--min-pass %v: want a value in [0, 1]", opts.MinPass)
	}
	errOut := &lockedWriter{w: s.ErrOut}
	if opts.LLM.Logf == nil {
		opts.LLM.Logf = stderrLogf(errOut, s.ErrTTY) // term.go
	}
	if err := opts.AutoReview.check(opts.BackbonesFile); err != nil {
		return err
	}
	po := opts.planOptions()
	var reqs *requestLog
	if opts.RecordRequests {
		reqs = &requestLog{}
		po.LLM.OnRequest = reqs.write
	}
	p, err := runplan.New(ctx, po)
	if err != nil {
		return err
	}
	defer p.Close()
	opts.Out = p.Options.Out
	ui := progressOptions{Streams: s, Quiet: opts.Quiet, Grace: p.Options.Grace, Every: opts.progressEvery}
	sum, err := executePlan(ctx, ui, errOut, p, reqs, nil)
	if err != nil {
		return err
	}
	if err := opts.AutoReview.run(ctx, s, opts.DataDir, p.Options.BackbonesFile, p.Options.Out, opts.LLM, opts.Quiet); err != nil {
		return err
	}
	if opts.MinPassSet && sum.Pass1() < opts.MinPass {
		return fmt.Errorf("pass^1 %.4f is below --min-pass %.4f: %w", sum.Pass1(), opts.MinPass, ErrFailed)
	}
	return nil
}

// executePlan runs a plan as `ledgerbench run` shows it: the header, the
// progress, the end-of-run summary. track, if set, receives the progress
// counters before the first simulation starts (the experiment's cost cap
// reads them).
func executePlan(ctx context.Context, ui progressOptions, errOut io.Writer, p *runplan.Plan, reqs *requestLog, track func(*runner.Progress)) (metrics.RunSummary, error) {
	out := p.Options.Out
	if !ui.Quiet {
		printHeader(errOut, p)
	}
	if reqs != nil {
		if err := os.MkdirAll(out, 0o755); err != nil {
			return metrics.RunSummary{}, fmt.Errorf("request log: %w", err)
		}
		if err := reqs.open(filepath.Join(out, requestsFile)); err != nil {
			return metrics.RunSummary{}, err
		}
		defer func() {
			if err := reqs.close(); err != nil {
				fmt.Fprintln(errOut, "ledgerbench:", err)
			}
		}()
	}
	prog := runner.NewProgress(len(p.Pending))
	if track != nil {
		track(prog)
	}
	stopUI := startProgress(ctx, ui, errOut, prog)
	res, err := p.Execute(ctx, prog)
	stopUI()
	if res == nil {
		return metrics.RunSummary{}, err
	}
	sum := metrics.SummarizeRun(res.Records, res.Expected)
	sum.AddSuperseded(res.Superseded)
	writeSummary(ui.Streams.Out, p.Manifest, sum, res.Run.Records, out)
	if errors.Is(err, runner.ErrStopped) {
		return sum, fmt.Errorf("interrupted: %w (continue with: ledgerbench run --resume --out %s)", err, out)
	}
	if errors.Is(err, runner.ErrRateLimited) {
		return sum, fmt.Errorf("%w (continue with: ledgerbench run --resume --out %s)", err, out)
	}
	return sum, err
}

func printHeader(w io.Writer, p *runplan.Plan) {
	m := p.Manifest
	judge := m.JudgeBackbone
	switch {
	case m.NoJudge:
		judge = "none (--no-judge)"
	case judge == "":
		judge = "none"
	}
	user := m.UserBackbone
	if m.Solo {
		user += " (solo mode: no user)"
	}
	fmt.Fprintf(w, "ledgerbench run: %s · agent %s · backbone %s · user %s · judge %s\n", m.Domain, m.Agent, m.Backbone, user, judge)
	shard := ""
	if m.Shard != "" {
		shard = " (shard " + m.Shard + ")"
	}
	fmt.Fprintf(w, "  %d tasks × %d trials = %d simulations%s · seed %d · max steps %d · max errors %d · concurrency %d\n",
		len(p.Tasks), m.Trials, len(p.Units), shard, m.Seed, m.MaxSteps, m.MaxErrors, p.Options.Concurrency)
	fmt.Fprintf(w, "  out %s\n", p.Options.Out)
	for _, d := range p.Defaults {
		fmt.Fprintf(w, "  default %s\n", d)
	}
	if len(p.Unpriced) > 0 {
		fmt.Fprintf(w, "  cost unknown: no price for %s in %s (records, the summary and reports say unknown, never $0)\n", strings.Join(p.Unpriced, ", "), p.Options.BackbonesFile)
	}
	if p.Existing != nil {
		note := ""
		if p.Existing.Truncated {
			note = "; its last line was incomplete (a crash) and was dropped"
		}
		fmt.Fprintf(w, "  continuing: %d simulations recorded, %d to run%s\n", len(p.Units)-len(p.Pending), len(p.Pending), note)
	}
}

// progressOptions are how a run shows its progress.
type progressOptions struct {
	Streams *Streams
	Quiet   bool
	// Grace is the run's --grace (said in the interrupt notice).
	Grace time.Duration
	// Every is the plain-progress interval (default 10s).
	Every time.Duration
}

// startProgress shows progress until the returned function is called: a bar
// redrawn on a terminal, plain lines otherwise, nothing with --quiet. It also
// announces a stop: an interrupt, or an experiment's budget cap.
func startProgress(ctx context.Context, opts progressOptions, w io.Writer, p *runner.Progress) func() {
	announced := make(chan struct{})
	stopCall := context.AfterFunc(ctx, func() {
		defer close(announced)
		snap := p.Snapshot()
		if opts.Streams.ErrTTY {
			fmt.Fprint(w, "\r\033[K")
		}
		how := "waiting for them to finish"
		if opts.Grace > 0 {
			how = fmt.Sprintf("canceling them after %s", opts.Grace)
		}
		if cause := context.Cause(ctx); errors.Is(cause, experiment.ErrBudget) {
			fmt.Fprintf(w, "budget reached (%v): starting no new simulations; %d running, %s\n", cause, snap.Running, how)
			return
		}
		fmt.Fprintf(w, "interrupted: starting no new simulations; %d running, %s (Ctrl-C again to quit now)\n", snap.Running, how)
	})
	// stopAnnounce returns once no announcement is being written: the
	// caller's own writes to the stream follow it (and may bypass w).
	stopAnnounce := sync.OnceFunc(func() {
		if !stopCall() {
			<-announced
		}
	})
	if opts.Quiet {
		return func() { stopAnnounce() }
	}
	every := opts.Every
	if every == 0 {
		every = 10 * time.Second
	}
	if opts.Streams.ErrTTY {
		every = 250 * time.Millisecond
	}
	stop := make(chan struct{})
	var wg sync.WaitGroup
	wg.Go(func() {
		t := time.NewTicker(every)
		defer t.Stop()
		last := -1
		for {
			select {
			case <-stop:
				snap := p.Snapshot()
				if opts.Streams.ErrTTY {
					fmt.Fprintf(w, "\r\033[K%s\n", fitLine(progressLine(snap, true), opts.Streams.width()))
				} else if snap.Done != last {
					fmt.Fprintln(w, progressLine(snap, false))
				}
				return
			case <-t.C:
				snap := p.Snapshot()
				if opts.Streams.ErrTTY {
					fmt.Fprintf(w, "\r\033[K%s", fitLine(progressLine(snap, true), opts.Streams.width()))
				} else if snap.Done != last {
					fmt.Fprintln(w, progressLine(snap, false))
					last = snap.Done
				}
			}
		}
	})
	return func() {
		close(stop)
		wg.Wait()
		stopAnnounce()
	}
}

func progressLine(s runner.Snapshot, bar bool) string {
	var b strings.Builder
	pct := 100.0
	if s.Total > 0 {
		pct = 100 * float64(s.Done) / float64(s.Total)
	}
	if bar {
		const width = 24
		fill := width
		if s.Total > 0 {
			fill = width * s.Done / s.Total
		}
		b.WriteString("[" + strings.Repeat("=", fill) + strings.Repeat(" ", width-fill) + "] ")
	}
	fmt.Fprintf(&b, "%d/%d (%.0f%%) · running %d · pass^1 ", s.Done, s.Total, pct, s.Running)
	if p := s.Pass1(); math.IsNaN(p) {
		b.WriteString("-")
	} else {
		fmt.Fprintf(&b, "%.3f", p)
	}
	if s.Infra > 0 {
		fmt.Fprintf(&b, " · infra errors %d", s.Infra)
	}
	fmt.Fprintf(&b, " · %s tokens · $%.2f · %s elapsed", humanCount(s.Tokens), s.Cost, s.Elapsed.Round(time.Second))
	if eta := s.ETA(); eta > 0 {
		fmt.Fprintf(&b, " · ETA %s", eta.Round(time.Second))
	}
	return b.String()
}

func humanCount(n int64) string {
	switch {
	case n >= 10_000_000:
		return fmt.Sprintf("%.0fM", float64(n)/1e6)
	case n >= 1_000_000:
		return fmt.Sprintf("%.1fM", float64(n)/1e6)
	case n >= 10_000:
		return fmt.Sprintf("%.0fk", float64(n)/1e3)
	case n >= 1_000:
		return fmt.Sprintf("%.1fk", float64(n)/1e3)
	}
	return fmt.Sprint(n)
}

// writeSummary prints the end-of-run account.
func writeSummary(w io.Writer, m *results.Manifest, s metrics.RunSummary, recs []results.Record, outDir string) {
	bb := m.Backbone
	if agents.Simulated(bb) {
		bb += " (simulated: scripted faults, not model results)"
	}
	fmt.Fprintf(w, "\n%s · agent %s · backbone %s · user %s\n", m.Domain, m.Agent, bb, m.UserBackbone)
	fmt.Fprintf(w, "simulations  %d recorded: %d scored, %s\n", s.Records, s.Scored, plural(len(s.Infra), "infrastructure error"))
	// A value with no scored simulation behind it is missing, never 0.
	for _, pk := range s.PassHatK {
		val, note := "—", "   (no task has a scored trial)"
		if pk.Tasks > 0 {
			val, note = fmt.Sprintf("%.4f", pk.Value), ""
			if pk.Tasks < s.Tasks {
				note = fmt.Sprintf("   (over %d of %d tasks: the others lack trials, see below)", pk.Tasks, s.Tasks)
			}
		}
		fmt.Fprintf(w, "pass^%-7d %s%s\n", pk.K, val, note)
	}
	avg := "—"
	if s.Scored > 0 {
		avg = fmt.Sprintf("%.4f", s.AvgReward)
	}
	fmt.Fprintf(w, "avg reward   %s\n", avg)
	if len(s.Infra) > 0 {
		fmt.Fprintf(w, "%s, excluded from every metric; `ledgerbench run --resume --out %s` re-runs them\n", plural(len(s.Infra), "infrastructure error"), outDir)
		errText := map[results.UnitKey]string{}
		for _, r := range recs {
			if r.Infrastructure() {
				errText[r.Key()] = r.Error
			}
		}
		for i, k := range s.Infra {
			if i == 10 {
				fmt.Fprintf(w, "  … %d more\n", len(s.Infra)-10)
				break
			}
			fmt.Fprintf(w, "  task %s trial %d: %s\n", k.TaskID, k.Trial, truncate(errText[k], 160))
		}
	}
	if len(s.Lacking) > 0 {
		var parts []string
		for _, l := range s.Lacking {
			p := fmt.Sprintf("%s (%d of %d", l.TaskID, l.Scored, l.Want)
			if l.Infra > 0 {
				p += fmt.Sprintf(", %d infra", l.Infra)
			}
			parts = append(parts, p+")")
		}
		if len(parts) > 20 {
			parts = append(parts[:20], fmt.Sprintf("… %d more", len(parts)-20))
		}
		fmt.Fprintf(w, "tasks lacking trials (%d): %s\n", len(s.Lacking), strings.Join(parts, ", "))
	}
	if s.NLNotEvaluated > 0 {
		why := ""
		if m.NoJudge {
			why = " (--no-judge)"
		}
		fmt.Fprintf(w, "NL assertions not judged%s in %d simulations: their rewards omit NL_ASSERTION\n", why, s.NLNotEvaluated)
	}
	if s.NLMissing > 0 {
		fmt.Fprintf(w, "NL judge gave fewer verdicts than assertions (an empty results list) in %d simulations: scored on the verdicts given, as τ²-bench does; see nl_assertions_missing in %s\n", s.NLMissing, results.SimulationsFile)
	}
	var terms []string
	for _, t := range sortedTerms(s.Terminations) {
		terms = append(terms, fmt.Sprintf("%s %d", t, s.Terminations[t]))
	}
	fmt.Fprintf(w, "terminations %s\n", strings.Join(terms, ", "))
	// A role whose backbone has no price has an unknown cost, never $0.
	cost := func(name string, c metrics.RoleCost) string {
		usd := fmt.Sprintf("$%.4f", c.USD)
		if c.Unknown > 0 {
			usd = fmt.Sprintf("$— (unknown in %d simulations: no price)", c.Unknown)
		}
		// The share of the prompt served from the provider's cache: — when
		// a call's usage did not report it.
		cached := ""
		if sh, ok := c.Usage.CachedShare(); ok {
			cached = fmt.Sprintf(" (%.1f%% cached)", 100*sh)
		} else if c.Usage.PromptTokens > 0 {
			cached = " (cached —)"
		}
		return fmt.Sprintf("%s %s in%s / %s out, %s", name, humanCount(int64(c.Usage.PromptTokens)), cached, humanCount(int64(c.Usage.CompletionTokens)), usd)
	}
	fmt.Fprintf(w, "tokens       %s · %s · %s\n", cost("agent", s.Agent), cost("user", s.User), cost("judge", s.Judge))
	known := s.Agent.USD + s.User.USD + s.Judge.USD
	if s.Agent.Unknown+s.User.Unknown+s.Judge.Unknown > 0 {
		fmt.Fprintf(w, "cost         unknown: a backbone has no price (set price: in the backbones file); $%.4f for the priced calls\n", known)
	} else {
		perSim := ""
		if s.Records > 0 {
			perSim = fmt.Sprintf(", $%.4f per simulation", known/float64(s.Records))
		}
		fmt.Fprintf(w, "cost         $%.4f total%s\n", known, perSim)
	}
}

func plural(n int, noun string) string {
	if n == 1 {
		return "1 " + noun
	}
	return fmt.Sprintf("%d %ss", n, noun)
}

func sortedTerms(m map[evaluator.Termination]int) []evaluator.Termination {
	out := make([]evaluator.Termination, 0, len(m))
	for t := range m {
		out = append(out, t)
	}
	slices.SortFunc(out, func(a, b evaluator.Termination) int {
		if m[a] != m[b] {
			return m[b] - m[a]
		}
		return strings.Compare(string(a), string(b))
	})
	return out
}

func truncate(s string, n int) string { return clip.Runes(s, n, "…") }

// lockedWriter serialises writes from the progress ticker, the interrupt
// notice and the command.
type lockedWriter struct {
	mu sync.Mutex
	w  io.Writer
}

func (l *lockedWriter) Write(b []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.w.Write(b)
}
