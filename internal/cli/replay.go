package cli

import (
	"encoding/json"
	"fmt"
	"os"

	"github.com/spf13/cobra"

	"github.com/ledgerbench/ledgerbench/evaluator"
	"github.com/ledgerbench/ledgerbench/internal/domains"
	"github.com/ledgerbench/ledgerbench/internal/pyjson"
	"github.com/ledgerbench/ledgerbench/tasks"
)

func newCmdReplay(s *Streams, g *globalOptions) *cobra.Command {
	var domain, taskID, callsFile string
	var dump bool
	cmd := &cobra.Command{
		Use:   "replay --domain D --task ID [--calls FILE] --dump-db",
		Short: "Replay a task's gold actions (or given calls) and print the final databases",
		Long: `Build the task's environment exactly as the evaluator builds its gold environment
(initial state, then each call without sync) and print {"db": …, "user_db": …}: the
final databases as JSON with upstream field names, so another implementation can be
compared with it. --calls FILE replays a JSON array of {"name", "arguments",
"requestor"} instead of the gold actions.`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if domain == "" || taskID == "" {
				return usageError{fmt.Errorf("replay needs --domain and --task")}
			}
			if !dump {
				return usageError{fmt.Errorf("replay: nothing to print; pass --dump-db")}
			}
			dir, err := g.dataDir(s)
			if err != nil {
				return err
			}
			dom, err := domains.Load(domain, dir)
			if err != nil {
				return err
			}
			task, err := findTask(dom.Tasks(), taskID)
			if err != nil {
				return err
			}
			ctx := cmd.Context()
			if callsFile != "" {
				b, err := os.ReadFile(callsFile)
				if err != nil {
					return fmt.Errorf("read calls: %w", err)
				}
				var acts []tasks.Action
				if err := json.Unmarshal(b, &acts); err != nil {
					return fmt.Errorf("%s: want a JSON array of {name, arguments, requestor}: %w", callsFile, err)
				}
				t := *task
				crit := tasks.EvaluationCriteria{}
				if t.EvaluationCriteria != nil {
					crit = *t.EvaluationCriteria
				}
				crit.Actions = acts
				t.EvaluationCriteria = &crit
				task = &t
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
		},
	}
	cmd.Flags().StringVar(&domain, "domain", "", "domain")
	cmd.Flags().StringVar(&taskID, "task", "", "task id")
	cmd.Flags().StringVar(&callsFile, "calls", "", "JSON file of calls to replay instead of the gold actions")
	cmd.Flags().BoolVar(&dump, "dump-db", false, "print the final databases as JSON")
	return cmd
}

// findTask looks a task up by id in every task list of a set.
func findTask(set *tasks.Set, id string) (*tasks.Task, error) { return set.Find(id) }
