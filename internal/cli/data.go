package cli

import (
	"context"
	"fmt"
	"sync"
	"time"

	"github.com/spf13/cobra"

	"github.com/ledgerbench/ledgerbench/internal/bench/domains"
	"github.com/ledgerbench/ledgerbench/internal/core/atomicfile"
	"github.com/ledgerbench/ledgerbench/internal/source/data"
)

type dataPullOptions struct {
	DataDir string
	// From is a local folder or URL with the upstream layout (empty:
	// GitHub at the pinned commits).
	From string
	// slowAfter is how long a pull runs before it shows progress (default
	// 1s); progressEvery the interval of plain progress lines (default 5s;
	// a terminal's line is redrawn every 250ms).
	slowAfter, progressEvery time.Duration
}

type dataCheckOptions struct {
	DataDir string
}

// dataRunners are the data subcommands' run functions (nil: the real ones).
type dataRunners struct {
	pull  func(context.Context, *Streams, *dataPullOptions) error
	check func(context.Context, *Streams, *dataCheckOptions) error
}

func newCmdData(s *Streams, g *globalOptions, runF dataRunners) *cobra.Command {
	cmd := &cobra.Command{
		Use:   "data",
		Short: "Fetch and check the pinned upstream data",
	}
	cmd.AddCommand(newCmdDataPull(s, g, runF.pull), newCmdDataCheck(s, g, runF.check))
	return cmd
}

func newCmdDataPull(s *Streams, g *globalOptions, runF func(context.Context, *Streams, *dataPullOptions) error) *cobra.Command {
	if runF == nil {
		runF = runDataPull
	}
	opts := &dataPullOptions{}
	cmd := &cobra.Command{
		Use:   "pull [--from DIR|URL]",
		Short: "Fetch every pinned upstream file into the data directory and check its sha256",
		Long: `Fetch the τ²-bench and τ-Trait files ledgerbench uses, at the commits pinned in its
manifest, into the data directory (--data, $LEDGERBENCH_DATA, or the user cache dir).
Every file is checked against its sha256 and written atomically; files already present
with the right hash are kept. --from reads a local folder holding one subfolder per
upstream repository (tau2-bench/, tau-trait/, tau-bench/) laid out like the repository, or a URL
serving that layout; the default is GitHub at the pinned commits.`,
		Args: noArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if err := g.setDataDir(s, &opts.DataDir); err != nil {
				return err
			}
			return runF(cmd.Context(), s, opts)
		},
	}
	cmd.Flags().StringVar(&opts.From, "from", "", "local folder or URL with the upstream layout (default: GitHub at the pinned commits)")
	return cmd
}

func runDataPull(ctx context.Context, s *Streams, opts *dataPullOptions) error {
	m, err := data.LoadManifest()
	if err != nil {
		return err
	}
	var src data.Source
	if opts.From != "" {
		src = data.ParseSource(opts.From)
	}
	prog := &data.Progress{}
	stop := showPullProgress(s, opts, prog, len(m.Files), m.TotalSize())
	sts, err := data.Pull(ctx, m, src, opts.DataDir, prog)
	stop()
	if err != nil {
		return err
	}
	fetched, kept := 0, 0
	for _, st := range sts {
		switch st.Action {
		case "fetched":
			fetched++
		case "ok":
			kept++
		}
	}
	if err := convertDerived(opts.DataDir); err != nil {
		return err
	}
	fmt.Fprintf(s.Out, "data in %s: %d files fetched, %d already present, all %d verified\n", opts.DataDir, fetched, kept, len(m.Files))
	return nil
}

// showPullProgress shows a pull's progress on stderr once it has run for
// opts.slowAfter (a fast pull prints only its summary): a line redrawn on a
// terminal, else a line every opts.progressEvery. The returned function
// stops it (clearing a terminal's line).
func showPullProgress(s *Streams, opts *dataPullOptions, p *data.Progress, files int, size int64) func() {
	after, every := opts.slowAfter, opts.progressEvery
	if after == 0 {
		after = time.Second
	}
	if every == 0 {
		every = 5 * time.Second
	}
	if s.ErrTTY {
		every = 250 * time.Millisecond
	}
	done := make(chan struct{})
	var wg sync.WaitGroup
	wg.Go(func() {
		select {
		case <-done:
			return
		case <-time.After(after):
		}
		t := time.NewTicker(every)
		defer t.Stop()
		for {
			line := pullProgressLine(p.Snapshot(), files, size)
			if s.ErrTTY {
				fmt.Fprintf(s.ErrOut, "\r\033[K%s", fitLine(line, s.width()))
			} else {
				fmt.Fprintln(s.ErrOut, line)
			}
			select {
			case <-done:
				if s.ErrTTY {
					fmt.Fprint(s.ErrOut, "\r\033[K")
				}
				return
			case <-t.C:
			}
		}
	})
	return func() {
		close(done)
		wg.Wait()
	}
}

func pullProgressLine(p data.ProgressSnapshot, files int, size int64) string {
	line := fmt.Sprintf("data pull: %d/%d files, %.1f of %.1f MB", p.Files, files, float64(p.Bytes)/1e6, float64(size)/1e6)
	if p.Current != "" {
		line += " · " + p.Current
	}
	return line
}

func newCmdDataCheck(s *Streams, g *globalOptions, runF func(context.Context, *Streams, *dataCheckOptions) error) *cobra.Command {
	if runF == nil {
		runF = runDataCheck
	}
	opts := &dataCheckOptions{}
	return &cobra.Command{
		Use:   "check",
		Short: "Check that the data directory holds every pinned file with its hash",
		Args:  noArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if err := g.setDataDir(s, &opts.DataDir); err != nil {
				return err
			}
			return runF(cmd.Context(), s, opts)
		},
	}
}

func runDataCheck(_ context.Context, s *Streams, opts *dataCheckOptions) error {
	m, err := data.LoadManifest()
	if err != nil {
		return err
	}
	if err := data.Check(m, opts.DataDir); err != nil {
		return err
	}
	fmt.Fprintf(s.Out, "data in %s: all %d files verified\n", opts.DataDir, len(m.Files))
	return nil
}

// convertDerived writes the files derived from the pulled data: what the
// domains derive (τ-Trait's task lists as JSON, for inspection and for other
// tools).
func convertDerived(dir string) error {
	files, err := domains.Derived(dir)
	if err != nil {
		return err
	}
	for _, f := range files {
		if err := atomicfile.Write(f.Path, f.Data); err != nil {
			return fmt.Errorf("derived data: %w", err)
		}
	}
	return nil
}
