package cli

import (
	"fmt"
	"os"
	"path/filepath"

	"github.com/spf13/cobra"

	"github.com/ledgerbench/ledgerbench/envs/telehealth"
	"github.com/ledgerbench/ledgerbench/internal/data"
	"github.com/ledgerbench/ledgerbench/tasks"
)

func newCmdData(s *Streams, g *globalOptions) *cobra.Command {
	cmd := &cobra.Command{
		Use:   "data",
		Short: "Fetch and check the pinned upstream data",
	}
	var from string
	pull := &cobra.Command{
		Use:   "pull [--from DIR|URL]",
		Short: "Fetch every pinned upstream file into the data directory and check its sha256",
		Long: `Fetch the τ²-bench and τ-Trait files ledgerbench uses, at the commits pinned in its
manifest, into the data directory (--data, $LEDGERBENCH_DATA, or the user cache dir).
Every file is checked against its sha256 and written atomically; files already present
with the right hash are kept. --from reads a local folder holding one subfolder per
upstream repository (tau2-bench/, tau-trait/) laid out like the repository, or a URL
serving that layout; the default is GitHub at the pinned commits.`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			dir, err := g.dataDir(s)
			if err != nil {
				return err
			}
			m, err := data.LoadManifest()
			if err != nil {
				return err
			}
			var src data.Source
			if from != "" {
				src = data.ParseSource(from)
			}
			fetched, kept := 0, 0
			_, err = data.Pull(cmd.Context(), m, src, dir, func(st data.Status) {
				switch st.Action {
				case "fetched":
					fetched++
				case "ok":
					kept++
				}
			})
			if err != nil {
				return err
			}
			if err := convertDerived(dir); err != nil {
				return err
			}
			fmt.Fprintf(s.Out, "data in %s: %d files fetched, %d already present, all %d verified\n", dir, fetched, kept, len(m.Files))
			return nil
		},
	}
	pull.Flags().StringVar(&from, "from", "", "local folder or URL with the upstream layout (default: GitHub at the pinned commits)")
	check := &cobra.Command{
		Use:   "check",
		Short: "Check that the data directory holds every pinned file with its hash",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			dir, err := g.dataDir(s)
			if err != nil {
				return err
			}
			m, err := data.LoadManifest()
			if err != nil {
				return err
			}
			if err := data.Check(m, dir); err != nil {
				return err
			}
			fmt.Fprintf(s.Out, "data in %s: all %d files verified\n", dir, len(m.Files))
			return nil
		},
	}
	cmd.AddCommand(pull, check)
	return cmd
}

// convertDerived writes files derived from the pulled data: τ-Trait's task
// lists converted from Python literals to JSON (tasks_<split>.json beside each
// tasks_<split>.py), for inspection and for other tools (ledgerbench itself
// parses the .py files when it loads the domain), and the index of each
// τ²-bench tasks.json (tasks.json.index), which spares loading a split the
// scan of the whole file.
func convertDerived(dir string) error {
	if err := tasks.WriteIndexes(dir); err != nil {
		return err
	}
	th := data.Telehealth(dir)
	for _, split := range []string{"test", "dev", "train"} {
		src := filepath.Join(th, "tasks_"+split+".py")
		b, err := os.ReadFile(src)
		if err != nil {
			return fmt.Errorf("convert τ-Trait tasks: %w", err)
		}
		out, err := telehealth.ConvertTasks(src, b)
		if err != nil {
			return fmt.Errorf("convert τ-Trait tasks: %w", err)
		}
		if err := writeAtomic(filepath.Join(th, "tasks_"+split+".json"), out); err != nil {
			return fmt.Errorf("convert τ-Trait tasks: %w", err)
		}
	}
	return nil
}

func writeAtomic(path string, b []byte) error {
	tmp, err := os.CreateTemp(filepath.Dir(path), "."+filepath.Base(path)+".part-*")
	if err != nil {
		return err
	}
	defer os.Remove(tmp.Name())
	if _, err := tmp.Write(b); err != nil {
		tmp.Close()
		return err
	}
	if err := tmp.Close(); err != nil {
		return err
	}
	if err := os.Chmod(tmp.Name(), 0o644); err != nil {
		return err
	}
	return os.Rename(tmp.Name(), path)
}
