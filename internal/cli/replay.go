package cli

import (
	"context"
	"encoding/json"
	"fmt"
	"os"

	"github.com/spf13/cobra"

	"github.com/ledgerbench/ledgerbench/internal/bench/envs"
	"github.com/ledgerbench/ledgerbench/internal/bench/evaluator"
	"github.com/ledgerbench/ledgerbench/internal/core/errext"
	"github.com/ledgerbench/ledgerbench/internal/core/message"
	"github.com/ledgerbench/ledgerbench/internal/py/pyjson"
	"github.com/ledgerbench/ledgerbench/internal/source/tasks"
)

type replayOptions struct {
	DataDir string
	Domain  string
	TaskID  string
	// Split is the task list the id is looked up in ("": the default
	// split, then every other list).
	Split string
	// CallsFile is a JSON array of calls to replay instead of the gold
	// actions.
	CallsFile string
	DumpDB    bool
	Retrieval retrievalOptions
}

func newCmdReplay(s *Streams, g *globalOptions, runF func(context.Context, *Streams, *replayOptions) error) *cobra.Command {
	if runF == nil {
		runF = runReplay
	}
	opts := &replayOptions{}
	cmd := &cobra.Command{
		Use:   "replay --domain D --task ID [--split S] [--calls FILE] --dump-db",
		Short: "Replay a task's gold actions (or given calls) and print the final databases",
		Long: `Build the task's environment exactly as the evaluator builds its gold environment
(initial state, then each call without sync) and print {"db": …, "user_db": …}: the
final databases as JSON with upstream field names, so another implementation can be
compared with it. --split names the task list the id is in (telehealth's dev and
train tasks reuse the test split's ids); without it the default split is searched
first, then the other lists. --calls FILE replays a JSON array of {"name",
"arguments", "requestor"} instead of the gold actions; a name that is not one of the
requestor's tools (the agent's by default, "requestor": "user" for the user's) is
an error.`,
		Args: noArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if opts.Domain == "" || opts.TaskID == "" {
				return errext.Usagef("replay needs --domain and --task")
			}
			if !opts.DumpDB {
				return errext.Usagef("replay: nothing to print; pass --dump-db")
			}
			if err := opts.Retrieval.check(opts.Domain); err != nil {
				return err
			}
			if err := g.setDataDir(s, &opts.DataDir); err != nil {
				return err
			}
			return runF(cmd.Context(), s, opts)
		},
	}
	cmd.Flags().StringVar(&opts.Domain, "domain", "", "domain")
	cmd.Flags().StringVar(&opts.TaskID, "task", "", "task id")
	cmd.Flags().StringVar(&opts.Split, "split", "", "the split the task id is in (default: the domain's default split, then the other lists)")
	cmd.Flags().StringVar(&opts.CallsFile, "calls", "", "JSON file of calls to replay instead of the gold actions")
	cmd.Flags().BoolVar(&opts.DumpDB, "dump-db", false, "print the final databases as JSON")
	addRetrievalFlags(cmd.Flags(), &opts.Retrieval)
	return cmd
}

func runReplay(ctx context.Context, s *Streams, opts *replayOptions) error {
	dom, err := opts.Retrieval.loader()(opts.Domain, opts.DataDir)
	if err != nil {
		return err
	}
	task, err := replayTask(dom.Tasks(), opts.Split, opts.TaskID)
	if err != nil {
		return err
	}
	if opts.CallsFile != "" {
		if task, err = withCalls(task, opts.CallsFile); err != nil {
			return err
		}
		for i, a := range task.GoldActions() {
			if err := envs.CheckTool(dom, message.Requestor(a.By()), a.Name); err != nil {
				return fmt.Errorf("%s: call %d: %w", opts.CallsFile, i, err)
			}
		}
	}
	env, err := evaluator.GoldEnv(ctx, dom, task)
	if err != nil {
		return err
	}
	agentDB, userDB := env.DumpDB()
	out := &pyjson.Dict{}
	out.Set("db", agentDB)
	out.Set("user_db", userDB)
	b, err := pyjson.Marshal(out)
	if err != nil {
		return err
	}
	_, err = fmt.Fprintln(s.Out, string(b))
	return err
}

// withCalls is a copy of task whose gold actions are the calls in file.
func withCalls(task *tasks.Task, file string) (*tasks.Task, error) {
	b, err := os.ReadFile(file)
	if err != nil {
		return nil, fmt.Errorf("read calls: %w", err)
	}
	var acts []tasks.Action
	if err := json.Unmarshal(b, &acts); err != nil {
		return nil, fmt.Errorf("%s: want a JSON array of {name, arguments, requestor}: %w", file, errext.JSON(err))
	}
	t := *task
	crit := tasks.EvaluationCriteria{}
	if t.EvaluationCriteria != nil {
		crit = *t.EvaluationCriteria
	}
	crit.Actions = acts
	t.EvaluationCriteria = &crit
	return &t, nil
}

// replayTask looks a task up by id in split, or with no split in every task
// list of the set (the default split first).
func replayTask(set *tasks.Set, split, id string) (*tasks.Task, error) {
	if split == "" {
		return set.Find(id)
	}
	sel, err := set.Select(tasks.Selection{Split: split, TaskIDs: []string{id}})
	if err != nil {
		return nil, err
	}
	return &sel[0], nil
}
