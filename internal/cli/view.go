package cli

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/ledgerbench/ledgerbench/internal/bench/envs"
	"github.com/ledgerbench/ledgerbench/internal/core/errext"
	"github.com/ledgerbench/ledgerbench/internal/output/report"
	"github.com/ledgerbench/ledgerbench/internal/output/view"
	"github.com/ledgerbench/ledgerbench/internal/score/metrics"
)

type viewOptions struct {
	Inputs    []string
	Out       string
	Open      bool
	Labels    report.Labels
	NoDomains bool
	DataDir   string
	DBDiffs   int
	Plain     bool
	Split     string
}

// splitAt is how many simulations make --split auto write the chunks beside
// the page rather than inside it.
const splitAt = 5000

func newCmdView(s *Streams, g *globalOptions, runF func(context.Context, *Streams, *viewOptions) error) *cobra.Command {
	if runF == nil {
		runF = runView
	}
	opts := &viewOptions{}
	cmd := &cobra.Command{
		Use:   "view RUN… [--out FILE.html] [--open]",
		Short: "Write runs and recorded results as one self-contained HTML page",
		Long: `Each RUN is a run directory, a τ²-bench results JSON or a τ-bench v1 / τ-Trait
results list (as for report). The page needs no network (CSS and script inline) and
works from file://:

  index       run groups (domain × agent × backbone) with pass^k; every simulation
              with task, trial, reward, termination, cost and error category;
              filters: failed only, domain, agent, group, error category, "gate
              stopped something", task id
  compare     two groups side by side on their shared tasks (which tasks flipped)
  simulation  the conversation with tool calls, arguments, outputs and errors; the
              reward breakdown with each failed check; the task's instructions and
              gold actions; LedgerAgent's gate verdicts inline with predicate and
              reason and the ledger as it stood at that turn

Simulations are embedded 64 at a time as gzip-compressed chunks, decoded with the
browser's DecompressionStream only when one of them is opened (--plain embeds plain
JSON instead, for browsers without it; the page is ~20 times larger); the index
pages 100 rows at a time. With --split (auto: runs over 5,000 simulations) the
chunks go into a folder beside the page named after it without its extension
(--out airline.html: airline.chunks/), loaded with script tags, which work from
file://; keep the two together. Domains found in the data directory give tasks
and gold actions. --open opens the page in the default browser (xdg-open, open,
or the Windows URL handler) and says so when that fails.`,
		Example: `  ledgerbench view runs/airline-baseline runs/airline-ledger --out airline.html --open
  ledgerbench view gpt-4o-airline.json`,
		Args: func(_ *cobra.Command, args []string) error {
			if len(args) == 0 {
				return errext.Usagef("view needs at least one RUN (a run directory or a results file)")
			}
			return nil
		},
		RunE: func(cmd *cobra.Command, args []string) error {
			opts.Inputs = args
			switch opts.Split {
			case "auto", "always", "never":
			default:
				return errext.Usagef("view: --split %q: want auto, always or never", opts.Split)
			}
			if opts.Plain && opts.Split == "always" {
				return errext.Usagef("view: --plain embeds every simulation in the page; it cannot be combined with --split always")
			}
			if !opts.NoDomains {
				if err := g.setDataDir(s, &opts.DataDir); err != nil {
					return err
				}
			}
			return runF(cmd.Context(), s, opts)
		},
	}
	f := cmd.Flags()
	f.StringVarP(&opts.Out, "out", "o", "view.html", "HTML file to write")
	f.BoolVar(&opts.Open, "open", false, "open the page in the default browser")
	f.StringVar(&opts.Labels.Domain, "domain", "", "label every record with this domain")
	f.StringVar(&opts.Labels.Agent, "agent", "", "label every record with this agent")
	f.StringVar(&opts.Labels.Backbone, "backbone", "", "label every record with this backbone")
	f.StringVar(&opts.Labels.UserBackbone, "user-backbone", "", "label every record with this user backbone")
	f.IntVar(&opts.DBDiffs, "db-diffs", 25, "list the differing database fields of up to N simulations whose DB check failed (replays them; -1 for all)")
	f.BoolVar(&opts.Plain, "plain", false, "embed simulations as plain JSON, not compressed (for browsers without DecompressionStream)")
	f.StringVar(&opts.Split, "split", "auto", "write the compressed chunks into a folder beside the page (--out airline.html: airline.chunks/): auto (over 5,000 simulations), always, never")
	f.BoolVar(&opts.NoDomains, "no-domains", false, "do not load domains from the data directory (use only what records carry)")
	return cmd
}

func runView(ctx context.Context, s *Streams, opts *viewOptions) error {
	var sources []*report.Source
	for _, in := range opts.Inputs {
		src, err := report.Load(in, opts.Labels)
		if err != nil {
			return err
		}
		sources = append(sources, src)
	}
	var cat metrics.Catalog
	var doms []envs.Domain
	if !opts.NoDomains {
		cat, doms = report.LoadDomains(opts.DataDir, sources, noteTo(s.ErrOut))
		report.AddShadowVerdicts(sources, doms)
	}
	for _, d := range report.Dropped(sources) {
		fmt.Fprintf(s.ErrOut, "warning: %s (the page lists every record)\n", d)
	}
	n := 0
	for _, src := range sources {
		n += len(src.Records)
	}
	vo := view.Options{Title: view.Title(opts.Inputs), Catalog: cat, Domains: doms, MaxDBDiffs: opts.DBDiffs, Plain: opts.Plain}
	if !opts.Plain && (opts.Split == "always" || opts.Split == "auto" && n > splitAt) {
		vo.ChunkDir = chunkDir(opts.Out)
		// Chunks of an earlier page must not mix with this one's.
		if err := os.RemoveAll(vo.ChunkDir); err != nil {
			return fmt.Errorf("view: %w", err)
		}
	}
	start := time.Now()
	f, err := os.Create(opts.Out)
	if err != nil {
		return fmt.Errorf("view: %w", err)
	}
	st, err := view.Write(ctx, f, sources, vo)
	if cerr := f.Close(); err == nil && cerr != nil {
		err = fmt.Errorf("view: %w", cerr)
	}
	if err != nil {
		return err
	}
	fmt.Fprintf(s.Out, "wrote %s: %d groups, %d simulations, %d tasks, %.1f MB in %s\n",
		opts.Out, st.Groups, st.Simulations, st.Tasks, float64(st.Bytes)/1e6, time.Since(start).Round(time.Millisecond))
	if vo.ChunkDir != "" {
		fmt.Fprintf(s.Out, "wrote %s: %d chunks, %.1f MB (keep it beside the page)\n", vo.ChunkDir, st.Chunks, float64(st.ChunkBytes)/1e6)
	}
	if opts.Open {
		abs, _ := filepath.Abs(opts.Out)
		if err := openBrowser(ctx, abs, openWait); err != nil {
			fmt.Fprintf(s.ErrOut, "note: could not open a browser (%v); open file://%s\n", err, abs)
		}
	}
	return nil
}

// chunkDir is the folder of a split page's chunks: the page's path without
// its extension, plus ".chunks" (airline.html: airline.chunks), or the whole
// path plus ".chunks" when that would be the page itself.
func chunkDir(page string) string {
	d := strings.TrimSuffix(page, filepath.Ext(page)) + ".chunks"
	if d == page {
		d = page + ".chunks"
	}
	return d
}

// openWait is how long --open waits for the opener to report a failure; an
// opener still running then (one that stays with the browser it started) is
// taken to have opened the page.
const openWait = 5 * time.Second

// openBrowser opens path with the platform's opener and returns its failure:
// a missing opener, or one that exits with an error within wait (xdg-open
// does when it finds no browser), with what it printed.
func openBrowser(ctx context.Context, path string, wait time.Duration) error {
	var c *exec.Cmd
	switch runtime.GOOS {
	case "darwin":
		c = exec.Command("open", path)
	case "windows":
		c = exec.Command("rundll32", "url.dll,FileProtocolHandler", path)
	default:
		c = exec.Command("xdg-open", path)
	}
	var out bytes.Buffer
	c.Stdout, c.Stderr = &out, &out
	if err := c.Start(); err != nil {
		return err
	}
	done := make(chan error, 1)
	go func() { done <- c.Wait() }()
	select {
	case err := <-done:
		if err != nil {
			if msg := strings.TrimSpace(out.String()); msg != "" {
				return fmt.Errorf("%s: %w: %s", filepath.Base(c.Path), err, truncate(msg, 300))
			}
			return fmt.Errorf("%s: %w", filepath.Base(c.Path), err)
		}
		return nil
	case <-time.After(wait):
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}
