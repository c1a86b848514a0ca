package play

import (
	"context"
	"errors"
	"fmt"
	"io"
	"slices"
	"strconv"
	"strings"

	"github.com/ledgerbench/ledgerbench/internal/bench/domains"
	"github.com/ledgerbench/ledgerbench/internal/bench/envs"
	"github.com/ledgerbench/ledgerbench/internal/core/clip"
	"github.com/ledgerbench/ledgerbench/internal/core/errext"
	"github.com/ledgerbench/ledgerbench/internal/engine/runplan"
	"github.com/ledgerbench/ledgerbench/internal/source/tasks"
)

// choose asks the person for the domain and the task the settings leave
// open, as upstream's manual mode asks (a numbered list; a number or the
// name or id answers). The end of input is a usage error naming the flag;
// Ctrl-C ends the choice with ctx's cause.
func choose(ctx context.Context, o *Options, lines *Lines) error {
	po := &o.Run
	if po.Domain == "" {
		names := domains.Names()
		fmt.Fprintln(o.Screen, "Domains:")
		for i, n := range names {
			fmt.Fprintf(o.Screen, "  %2d  %s\n", i+1, n)
		}
		d, err := ask(ctx, o.Screen, lines, "domain", names)
		if err != nil {
			return err
		}
		po.Domain = d
	}
	if strings.TrimSpace(o.Task) != "" {
		return nil
	}
	ts, err := listTasks(po)
	if err != nil {
		return err
	}
	ids := make([]string, len(ts))
	fmt.Fprintf(o.Screen, "Tasks of %s:\n", po.Domain)
	for i := range ts {
		ids[i] = ts[i].ID
		fmt.Fprintf(o.Screen, "  %3d  %s  %s\n", i+1, ts[i].ID, purpose(&ts[i]))
	}
	o.Task, err = ask(ctx, o.Screen, lines, "task", ids)
	return err
}

// listTasks loads the domain and selects its split's tasks.
func listTasks(po *runplan.Options) ([]tasks.Task, error) {
	if po.LoadDomain == nil {
		return nil, errors.New("play: no domain loader")
	}
	dopts, err := domains.RetrievalOptions(po.Domain, po.RetrievalConfig, po.RetrievalConfigKwargs)
	if err != nil {
		return nil, errext.Usage(err)
	}
	dom, _, err := po.LoadDomain(po.Domain, po.Solo, dopts)
	if err != nil {
		return nil, err
	}
	defer envs.Close(dom)
	ts, err := dom.Tasks().Select(tasks.Selection{Split: po.Split})
	if err != nil {
		return nil, errext.Usage(err)
	}
	return ts, nil
}

// ask reads a choice among options: its number or itself.
func ask(ctx context.Context, w io.Writer, lines *Lines, what string, options []string) (string, error) {
	for {
		fmt.Fprintf(w, "%s (1-%d or a name)> ", what, len(options))
		line, err := lines.next(ctx, ctx.Done())
		switch {
		case errors.Is(err, io.EOF):
			fmt.Fprintln(w)
			return "", errext.Usagef("no %s chosen: pass --%s", what, what)
		case errors.Is(err, ErrInterrupted):
			fmt.Fprintln(w)
			return "", fmt.Errorf("interrupted before playing: %w", context.Cause(ctx))
		case err != nil:
			return "", err
		}
		s := strings.TrimSpace(line)
		if n, err := strconv.Atoi(s); err == nil && n >= 1 && n <= len(options) {
			return options[n-1], nil
		}
		if slices.Contains(options, s) {
			return s, nil
		}
		fmt.Fprintf(w, "  ! %q is not a %s here\n", s, what)
	}
}

// purpose is a task's description's purpose on one line (upstream lists
// the description), or its reason for call.
func purpose(t *tasks.Task) string {
	s := ""
	if t.Description != nil && t.Description.Purpose != nil {
		s = *t.Description.Purpose
	} else if si := t.UserScenario.Instructions.Structured; si != nil {
		s = si.ReasonForCall
	}
	return clip.Runes(strings.Join(strings.Fields(s), " "), 100, "…")
}
