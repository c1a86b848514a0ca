package cli

import (
	"context"
	"slices"
	"strings"

	"github.com/spf13/cobra"

	"github.com/ledgerbench/ledgerbench/internal/bench/domains"
	"github.com/ledgerbench/ledgerbench/internal/core/errext"
	"github.com/ledgerbench/ledgerbench/internal/output/domaindoc"
	"github.com/ledgerbench/ledgerbench/internal/output/report"
)

type domainOptions struct {
	domaindoc.Options
	Retrieval retrievalOptions
	// Format is text (Markdown) or json.
	Format string
}

func newCmdDomain(s *Streams, g *globalOptions, runF func(context.Context, *Streams, *domainOptions) error) *cobra.Command {
	if runF == nil {
		runF = runDomain
	}
	opts := &domainOptions{}
	cmd := &cobra.Command{
		Use:   "domain D [--solo] [--format text|json]",
		Short: "Show a domain's documentation: policy, tools with their schemas, task and split counts",
		Long: `Print a domain's documentation as τ²-bench's ` + "`tau2 domain`" + ` shows it (upstream serves
it as a ReDoc page): the agent's policy as the pulled upstream text composes it,
every agent and user tool with its kind, description and parameters' JSON schema
as the model receives them, and the task count of the default split (what run
selects without --split) and of every split. The text format is Markdown; --json
prints one JSON object.

--solo documents τ²-bench's solo mode (telecom): the solo policy, the agent
holding the phone tools. banking_knowledge takes --retrieval-config as run does
(the variant decides its knowledge tools).`,
		Example: `  ledgerbench domain airline
  ledgerbench domain telecom --solo
  ledgerbench domain banking_knowledge --retrieval-config bm25 --json`,
		Args:              cobra.ExactArgs(1),
		ValidArgsFunction: cobra.FixedCompletions(domains.Names(), cobra.ShellCompDirectiveNoFileComp),
		RunE: func(cmd *cobra.Command, args []string) error {
			opts.Domain = args[0]
			if !slices.Contains(domains.Names(), opts.Domain) {
				return errext.Usagef("unknown domain %q (have: %s)", opts.Domain, strings.Join(domains.Names(), ", "))
			}
			if opts.Solo && !slices.Contains(domains.SoloNames(), opts.Domain) {
				return errext.Usagef("--solo: domain %s has no solo mode (upstream's solo mode: %s)", opts.Domain, strings.Join(domains.SoloNames(), ", "))
			}
			if err := opts.Retrieval.check(opts.Domain); err != nil {
				return err
			}
			load, err := domains.RetrievalOptions(opts.Domain, opts.Retrieval.Config, opts.Retrieval.Kwargs)
			if err != nil {
				return errext.Usage(err)
			}
			if opts.Solo && load.Set() {
				return errext.Usagef("--solo and --retrieval-config: %s has no solo mode", opts.Domain)
			}
			opts.Load = load
			opts.JSON = opts.Format == string(report.JSON)
			if err := g.setDataDir(s, &opts.DataDir); err != nil {
				return err
			}
			return runF(cmd.Context(), s, opts)
		},
	}
	f := cmd.Flags()
	f.BoolVar(&opts.Solo, "solo", false, "document the domain's solo mode (solo policy; the agent holds the user's tools)")
	addRetrievalFlags(f, &opts.Retrieval)
	addFormatFlags(cmd, &opts.Format, report.Text, report.JSON)
	return cmd
}

func runDomain(_ context.Context, s *Streams, opts *domainOptions) error {
	return domaindoc.Run(s.Out, opts.Options)
}
