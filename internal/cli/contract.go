package cli

import (
	"context"
	"errors"
	"fmt"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/ledgerbench/ledgerbench/internal/bench/domains"
	"github.com/ledgerbench/ledgerbench/internal/core/errext"
	"github.com/ledgerbench/ledgerbench/internal/engine/agents"
	"github.com/ledgerbench/ledgerbench/internal/engine/llm"
	"github.com/ledgerbench/ledgerbench/internal/engine/review"
	"github.com/ledgerbench/ledgerbench/internal/engine/usersim"
	"github.com/ledgerbench/ledgerbench/internal/output/leaderboard"
	"github.com/ledgerbench/ledgerbench/internal/output/report"
	"github.com/ledgerbench/ledgerbench/internal/output/submit"
)

// The command line's contract, applied to the whole tree in one place so
// every command behaves alike: argument errors are usage errors (exit 2),
// commands without arguments name the stray one, group commands refuse
// unknown subcommands, counts must be positive, --domain and --agent must
// name a known domain and agent, --format is accepted wherever --json is,
// --shard auto reads the cluster's array index, and flag values complete in
// the shell.

// positiveFlags are the count flags that must be at least 1 when given;
// nonNegativeFlags the counts, durations and amounts that must not be
// negative. This is the one place a flag's value is checked (the planner
// checks how settings go together).
var (
	positiveFlags    = []string{"trials", "concurrency", "k", "max-steps", "max-errors", "parallel-cells"}
	nonNegativeFlags = []string{"limit", "timeout", "grace", "trial", "max-cost", "max-simulations"}
)

// labelCommands take --domain and --agent as free labels, not as names of
// ported domains and agents.
var labelCommands = []string{"report", "view"}

// contract applies the contract to root and every command below it. Every
// runnable command declares its Args (TestCommandsDeclareArgs); a group
// command (subcommands, no RunE of its own) refuses an argument as an
// unknown command.
func contract(s *Streams, root *cobra.Command) {
	root.Flags().Bool("version", false, "print the version") // no -v: -v is --verbose everywhere
	root.Args = cobra.ArbitraryArgs
	root.RunE = groupRunE
	root.PersistentPreRunE = func(cmd *cobra.Command, _ []string) error { return checkFlags(s, cmd) }
	// cobra adds `completion` when the tree runs; add it now so that its
	// commands follow the contract too (bash, zsh, fish and powershell take
	// no arguments).
	root.InitDefaultCompletionCmd()
	for _, c := range root.Commands() {
		if c.Name() == "completion" {
			for _, sh := range c.Commands() {
				sh.Args = noArgs
			}
		}
	}
	var walk func(c *cobra.Command)
	walk = func(c *cobra.Command) {
		if c != root && c.HasSubCommands() && !c.Runnable() {
			c.Args = cobra.ArbitraryArgs
			c.RunE = groupRunE
		}
		if c.Args != nil {
			c.Args = usageArgs(c.Args)
		}
		addFormatAlias(c)
		addShardCount(c)
		complete(c)
		for _, sub := range c.Commands() {
			walk(sub)
		}
	}
	walk(root)
}

// groupRunE runs a command that only groups others: an argument is an
// unknown command, none prints the help.
func groupRunE(cmd *cobra.Command, args []string) error {
	if v, _ := cmd.Flags().GetBool("version"); v && cmd.Parent() == nil {
		fmt.Fprintln(cmd.OutOrStdout(), versionLine())
		return nil
	}
	if len(args) > 0 {
		msg := fmt.Sprintf("unknown command %q for %q", args[0], cmd.CommandPath())
		if sug := cmd.SuggestionsFor(args[0]); len(sug) > 0 {
			msg += fmt.Sprintf(" (did you mean %s?)", strings.Join(sug, ", "))
		}
		return errext.Usagef("%s; see '%s --help'", msg, cmd.CommandPath())
	}
	return cmd.Help()
}

// noArgs refuses arguments, naming the first.
func noArgs(cmd *cobra.Command, args []string) error {
	if len(args) > 0 {
		return fmt.Errorf("unexpected argument %q: %s takes no arguments (flags start with --)", args[0], cmd.CommandPath())
	}
	return nil
}

// usageArgs makes an argument check's error a usage error that shows the
// command's usage line.
func usageArgs(check cobra.PositionalArgs) cobra.PositionalArgs {
	return func(cmd *cobra.Command, args []string) error {
		err := check(cmd, args)
		if err == nil {
			return nil
		}
		if errext.IsUsage(err) {
			return err
		}
		return errext.Usagef("%w (usage: %s)", err, cmd.UseLine())
	}
}

// checkFlags validates what every command shares before it runs.
func checkFlags(s *Streams, cmd *cobra.Command) error {
	f := cmd.Flags()
	var errs []error
	for _, name := range positiveFlags {
		if fl := f.Lookup(name); fl != nil && fl.Changed {
			if n, err := strconv.Atoi(fl.Value.String()); err == nil && n < 1 {
				errs = append(errs, fmt.Errorf("--%s must be at least 1 (got %d)", name, n))
			}
		}
	}
	for _, name := range nonNegativeFlags {
		if fl := f.Lookup(name); fl != nil && fl.Changed && negative(fl) {
			errs = append(errs, fmt.Errorf("--%s must not be negative (got %s)", name, fl.Value))
		}
	}
	if fl := f.Lookup("task-ids"); fl != nil && fl.Changed {
		ids, _ := f.GetStringSlice("task-ids")
		if len(ids) == 0 || slices.Contains(ids, "") {
			errs = append(errs, fmt.Errorf("--task-ids is empty or has an empty entry: name at least one task id"))
		}
	}
	if !slices.Contains(labelCommands, cmd.Name()) {
		errs = append(errs, checkNames(f, "domain", domains.Names())...)
		errs = append(errs, checkNames(f, "agent", agents.AgentNames())...)
	}
	errs = append(errs, checkNames(f, "loop", agents.Loops())...)
	errs = append(errs, checkNames(f, "user-style", agents.UserStyles())...)
	errs = append(errs, checkNames(f, "trait-mode", usersim.TraitModes())...)
	if err := formatAlias(cmd); err != nil {
		errs = append(errs, err)
	}
	if err := autoShard(s, cmd); err != nil {
		errs = append(errs, err)
	}
	if err := errors.Join(errs...); err != nil {
		return errext.Usage(err)
	}
	return nil
}

// negative reports a number or duration flag's value below zero.
func negative(fl *pflag.Flag) bool {
	if fl.Value.Type() == "duration" {
		d, err := time.ParseDuration(fl.Value.String())
		return err == nil && d < 0
	}
	x, err := strconv.ParseFloat(fl.Value.String(), 64)
	return err == nil && x < 0
}

// checkNames checks the values of a flag naming one of a fixed set
// (--domain, --agent, --loop, …) against names.
func checkNames(f *pflag.FlagSet, flag string, names []string) []error {
	fl := f.Lookup(flag)
	if fl == nil || !fl.Changed {
		return nil
	}
	var vals []string
	if sv, ok := fl.Value.(pflag.SliceValue); ok {
		vals = sv.GetSlice()
	} else {
		vals = []string{fl.Value.String()}
	}
	var errs []error
	noun := strings.ReplaceAll(flag, "-", " ")
	for _, v := range vals {
		if !slices.Contains(names, v) {
			errs = append(errs, fmt.Errorf("--%s: unknown %s %q (have: %s)", flag, noun, v, strings.Join(names, ", ")))
		}
	}
	return errs
}

// versionLine is what `version` prints.
func versionLine() string {
	return fmt.Sprintf("ledgerbench %s (%s, %s/%s)", Version, runtime.Version(), runtime.GOOS, runtime.GOARCH)
}

type versionOptions struct{}

func newCmdVersion(s *Streams, runF func(context.Context, *Streams, *versionOptions) error) *cobra.Command {
	if runF == nil {
		runF = runVersion
	}
	opts := &versionOptions{}
	return &cobra.Command{
		Use:   "version",
		Short: "Print the version",
		Args:  noArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			return runF(cmd.Context(), s, opts)
		},
	}
}

func runVersion(_ context.Context, s *Streams, _ *versionOptions) error {
	_, err := fmt.Fprintln(s.Out, versionLine())
	return err
}

// flagError words pflag's parse errors as a person reads them, by the
// flag's type (no Go type or function names): `--trials "x": want a whole
// number`.
func flagError(_ *cobra.Command, err error) error {
	var ive *pflag.InvalidValueError
	if !errors.As(err, &ive) {
		return errext.Usage(err)
	}
	name := "--" + ive.GetFlag().Name
	if want := flagKind(ive.GetFlag().Value.Type()); want != "" {
		return errext.Usagef("%s %q: want %s", name, ive.GetValue(), want)
	}
	return errext.Usagef("%s %q: %v", name, ive.GetValue(), errors.Unwrap(ive))
}

// flagKind names what a flag of a pflag type takes ("" for text).
func flagKind(typ string) string {
	switch {
	case typ == "duration":
		return "a duration such as 90s, 5m or 1h30m"
	case typ == "bool":
		return "true or false"
	case strings.HasPrefix(typ, "float"):
		return "a number"
	case strings.HasPrefix(typ, "int"), strings.HasPrefix(typ, "uint"):
		return "a whole number"
	}
	return ""
}

// complete registers shell completion of flag values.
func complete(c *cobra.Command) {
	fixed := func(vals ...string) func(*cobra.Command, []string, string) ([]string, cobra.ShellCompDirective) {
		return func(*cobra.Command, []string, string) ([]string, cobra.ShellCompDirective) {
			return vals, cobra.ShellCompDirectiveNoFileComp
		}
	}
	reg := func(name string, fn func(*cobra.Command, []string, string) ([]string, cobra.ShellCompDirective)) {
		if c.Flags().Lookup(name) != nil {
			_ = c.RegisterFlagCompletionFunc(name, fn) // only fails for an unknown or twice-registered flag
		}
	}
	label := slices.Contains(labelCommands, c.Name())
	if c.Name() == "leaderboard" {
		reg("domain", fixed(submit.Domains()...))
		reg("metric", fixed(leaderboard.Metrics()...))
		reg("type", fixed(leaderboard.TypeStandard, leaderboard.TypeCustom, leaderboard.TypeAll))
	} else if !label {
		reg("domain", fixed(domains.Names()...))
		reg("agent", fixed(agents.AgentNames()...))
	}
	reg("loop", fixed(agents.Loops()...))
	reg("user-style", fixed(agents.UserStyles()...))
	reg("trait-mode", fixed(usersim.TraitModes()...))
	reg("table", fixed(report.TableIDs()...))
	if fl := c.Flags().Lookup("format"); fl != nil {
		switch {
		case formatNames(c) != nil:
			reg("format", fixed(formatNames(c)...))
		case c.Name() == "export":
			reg("format", fixed("tau2"))
		default:
			var fs []string
			for _, f := range report.Formats() {
				fs = append(fs, string(f))
			}
			reg("format", fixed(fs...))
		}
	}
	reg("figure-format", fixed("svg", "png", "pdf"))
	reg("review-mode", fixed(string(review.Full), string(review.User)))
	if c.Name() == "review" {
		reg("mode", fixed(string(review.Full), string(review.User)))
	}
	backbones := func(cmd *cobra.Command, _ []string, _ string) ([]string, cobra.ShellCompDirective) {
		path := defaultBackbonesFile
		if fl := cmd.Flags().Lookup("backbones"); fl != nil {
			path = fl.Value.String()
		}
		names := []string{"sim", "gold", "replay:"}
		if cfg, err := llm.Load(path); err == nil {
			names = append(cfg.Names(), names...)
		}
		return names, cobra.ShellCompDirectiveNoFileComp
	}
	if !label {
		for _, name := range []string{"backbone", "user-backbone", "judge-backbone", "review-backbone"} {
			reg(name, backbones)
		}
	}
}
