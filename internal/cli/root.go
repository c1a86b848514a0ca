// Package cli is ledgerbench's command tree: flags become options, and each
// command makes one call into the packages that do the work.
package cli

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/signal"
	"path/filepath"
	"syscall"

	"github.com/spf13/cobra"

	"github.com/ledgerbench/ledgerbench/internal/core/errext"
)

// Version is the harness version written into run manifests.
var Version = "0.1.0-dev"

// Streams are the command's input and outputs.
type Streams struct {
	In     io.Reader
	Out    io.Writer
	ErrOut io.Writer
	// IsTTY is true when Out is a terminal; ErrTTY when ErrOut is (the
	// progress bar draws on ErrOut). Width is ErrOut's terminal width (0:
	// $COLUMNS, else 80).
	IsTTY  bool
	ErrTTY bool
	Width  int
	// Getenv reads the environment (os.Getenv outside tests).
	Getenv func(string) string
}

// Exit codes (errext's): an error carries its own (errext.WithExitCode);
// one without is ExitError.
const (
	ExitOK          = int(errext.ExitOK)
	ExitError       = int(errext.ExitError)
	ExitUsage       = int(errext.ExitUsage)
	ExitFailed      = int(errext.ExitFailed) // verification failed or a --min-pass threshold was not met
	ExitBudget      = int(errext.ExitBudget) // an experiment stopped on a budget cap (max_cost, max_simulations)
	ExitInterrupted = int(errext.ExitInterrupted)
)

// ErrFailed marks a run that completed but did not meet its bar (exit 3).
var ErrFailed = errext.WithExitCode(errors.New("failed"), errext.ExitFailed)

// budgetError is an experiment stopped by a budget cap (which one: why).
type budgetError struct{ why string }

func (b budgetError) Error() string {
	return "experiment stopped on its budget (" + b.why + "); rerun with a higher cap to continue"
}

func (b budgetError) ExitCode() errext.ExitCode { return errext.ExitBudget }

// Main runs the command line and returns the exit code.
func Main() int {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	go func() {
		<-ctx.Done()
		stop() // a second Ctrl-C kills the process
	}()
	s := &Streams{In: os.Stdin, Out: os.Stdout, ErrOut: os.Stderr,
		IsTTY: isTerminal(os.Stdout), ErrTTY: isTerminal(os.Stderr), Width: terminalWidth(os.Stderr), Getenv: os.Getenv}
	return Execute(ctx, s, os.Args[1:])
}

// Execute runs the command tree with args and maps errors to exit codes.
func Execute(ctx context.Context, s *Streams, args []string) int {
	root := NewRoot(s)
	root.SetArgs(args)
	root.SetIn(s.In)
	root.SetOut(s.Out)
	root.SetErr(s.ErrOut)
	err := root.ExecuteContext(ctx)
	if err == nil {
		return ExitOK
	}
	fmt.Fprintln(s.ErrOut, "ledgerbench:", errext.Message(err))
	if errors.Is(err, context.Canceled) || ctx.Err() != nil {
		return ExitInterrupted
	}
	return int(errext.Code(err))
}

// globalOptions are flags every command shares.
type globalOptions struct {
	DataDir string
}

// NewRoot builds the command tree.
func NewRoot(s *Streams) *cobra.Command {
	g := &globalOptions{}
	root := &cobra.Command{
		Use:   "ledgerbench",
		Short: "Reproduce LedgerAgent experiments on τ²-bench and τ-Trait",
		Long: `ledgerbench runs tool-calling agents against Go ports of the τ²-bench airline,
retail and telecom domains and τ-Trait's telehealth domain, scores them with
τ²-bench's evaluator, and reports pass^k.`,
		SilenceUsage:  true,
		SilenceErrors: true,
	}
	root.PersistentFlags().StringVar(&g.DataDir, "data", "", "data directory (default $LEDGERBENCH_DATA or the user cache dir)")
	root.SetFlagErrorFunc(flagError)
	root.AddCommand(
		newCmdData(s, g, dataRunners{}),
		newCmdVerify(s, g, nil),
		newCmdReplay(s, g, nil),
		newCmdTasks(s, g, nil),
		newCmdDomain(s, g, nil),
		newCmdGateAudit(s, g, nil),
		newCmdRun(s, g, nil),
		newCmdPrompt(s, g, nil),
		newCmdMerge(s, nil),
		newCmdExport(s, g, nil),
		newCmdRescore(s, g, nil),
		newCmdReport(s, g, nil),
		newCmdExperiment(s, g, nil),
		newCmdView(s, g, nil),
		newCmdReview(s, g, nil),
		newCmdSubmit(s, g, submitRunners{}),
		newCmdLeaderboard(s, g, nil),
		newCmdPlay(s, g, nil),
		newCmdVersion(s, nil),
	)
	contract(s, root)
	return root
}

// dataDir resolves the data directory: --data, then $LEDGERBENCH_DATA, then
// the user cache dir.
func (g *globalOptions) dataDir(s *Streams) (string, error) {
	if g.DataDir != "" {
		return g.DataDir, nil
	}
	if d := s.Getenv("LEDGERBENCH_DATA"); d != "" {
		return d, nil
	}
	c, err := os.UserCacheDir()
	if err != nil {
		return "", fmt.Errorf("no data directory: pass --data or set LEDGERBENCH_DATA: %w", err)
	}
	return filepath.Join(c, "ledgerbench"), nil
}

// setDataDir resolves the data directory into dst (a command's options).
func (g *globalOptions) setDataDir(s *Streams, dst *string) error {
	d, err := g.dataDir(s)
	*dst = d
	return err
}
