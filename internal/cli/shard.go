package cli

import (
	"fmt"
	"strconv"

	"github.com/spf13/cobra"
)

// --shard auto: the shard index and count come from the cluster's array
// job, so one script or manifest runs every shard.
//
//   - Slurm job arrays (sbatch --array=0-3): SLURM_ARRAY_TASK_ID, counted
//     from SLURM_ARRAY_TASK_MIN, of SLURM_ARRAY_TASK_COUNT;
//   - Kubernetes Indexed Jobs: JOB_COMPLETION_INDEX (from 0) of --shard-count
//     (the Job's completions; Kubernetes does not pass it to the pod).

const shardAuto = "auto"

// addShardCount gives a command with --shard the --shard-count of --shard auto.
func addShardCount(c *cobra.Command) {
	if fl := c.Flags().Lookup("shard"); fl != nil {
		fl.Usage += `; "auto" reads SLURM_ARRAY_TASK_ID/SLURM_ARRAY_TASK_COUNT or JOB_COMPLETION_INDEX with --shard-count`
		c.Flags().Int("shard-count", 0, "with --shard auto: the number of shards (a Kubernetes Indexed Job's completions)")
	}
}

// autoShard resolves --shard auto into --shard i/n.
func autoShard(s *Streams, cmd *cobra.Command) error {
	f := cmd.Flags()
	fl := f.Lookup("shard")
	if fl == nil {
		return nil
	}
	count, _ := f.GetInt("shard-count")
	if fl.Value.String() != shardAuto {
		if f.Changed("shard-count") {
			return fmt.Errorf("--shard-count goes with --shard auto")
		}
		return nil
	}
	i, n, from, err := shardFromEnv(s.Getenv, count)
	if err != nil {
		return err
	}
	fmt.Fprintf(s.ErrOut, "shard %d/%d (from %s)\n", i, n, from)
	return f.Set("shard", fmt.Sprintf("%d/%d", i, n))
}

// shardFromEnv reads the 1-based shard index and the count.
func shardFromEnv(getenv func(string) string, count int) (i, n int, from string, err error) {
	num := func(name string) (int, bool, error) {
		v := getenv(name)
		if v == "" {
			return 0, false, nil
		}
		x, err := strconv.Atoi(v)
		if err != nil || x < 0 {
			return 0, true, fmt.Errorf("--shard auto: %s=%q is not a whole number", name, v)
		}
		return x, true, nil
	}
	if id, ok, err := num("SLURM_ARRAY_TASK_ID"); err != nil || ok {
		if err != nil {
			return 0, 0, "", err
		}
		lo, _, err := num("SLURM_ARRAY_TASK_MIN")
		if err != nil {
			return 0, 0, "", err
		}
		if step, ok, _ := num("SLURM_ARRAY_TASK_STEP"); ok && step != 1 {
			return 0, 0, "", fmt.Errorf("--shard auto: the Slurm array has step %d; use a contiguous array (--array=0-N)", step)
		}
		n, ok, err := num("SLURM_ARRAY_TASK_COUNT")
		switch {
		case err != nil:
			return 0, 0, "", err
		case !ok && count == 0:
			return 0, 0, "", fmt.Errorf("--shard auto: SLURM_ARRAY_TASK_COUNT is not set; pass --shard-count")
		case ok && count > 0 && n != count:
			return 0, 0, "", fmt.Errorf("--shard auto: --shard-count %d but SLURM_ARRAY_TASK_COUNT=%d", count, n)
		case !ok:
			n = count
		}
		i = id - lo + 1
		if i < 1 || i > n {
			return 0, 0, "", fmt.Errorf("--shard auto: SLURM_ARRAY_TASK_ID=%d is outside the array (%d tasks from %d)", id, n, lo)
		}
		return i, n, "SLURM_ARRAY_TASK_ID", nil
	}
	idx, ok, err := num("JOB_COMPLETION_INDEX")
	if err != nil {
		return 0, 0, "", err
	}
	if !ok {
		return 0, 0, "", fmt.Errorf("--shard auto: neither SLURM_ARRAY_TASK_ID (a Slurm job array) nor JOB_COMPLETION_INDEX (a Kubernetes Indexed Job) is set")
	}
	if count < 1 {
		return 0, 0, "", fmt.Errorf("--shard auto with JOB_COMPLETION_INDEX needs --shard-count (the Job's completions)")
	}
	if idx >= count {
		return 0, 0, "", fmt.Errorf("--shard auto: JOB_COMPLETION_INDEX=%d but --shard-count %d", idx, count)
	}
	return idx + 1, count, "JOB_COMPLETION_INDEX", nil
}
