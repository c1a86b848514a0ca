package tautraittelecom

import (
	"fmt"
	"os"
	"path/filepath"

	"github.com/ledgerbench/ledgerbench/internal/bench/envs/tauv1"
	"github.com/ledgerbench/ledgerbench/internal/py/pyliteral"
)

// steps are troubleshoot_device's answers, read at load time from the
// return statements of TroubleshootDevice.invoke in the pulled
// tools/troubleshoot_device.py. The function returns, in source order: the
// device-not-found f-string; for phones battery_drain, no_service and
// slow_speeds steps and "unknown issue"; for networking no_service and
// slow_speeds steps and "unknown issue"; for TVs no_service steps and
// "unknown issue"; and "unknown issue" for other categories.
type steps struct {
	phoneBattery, phoneNoService, phoneSlow string
	netNoService, netSlow                   string
	tvNoService                             string
	unknown                                 string
}

const stepsClass = "TroubleshootDevice"

func loadSteps(dir string) (steps, error) {
	path := filepath.Join(dir, tauv1.ToolsDir, "troubleshoot_device.py")
	src, err := os.ReadFile(path)
	if err != nil {
		return steps{}, fmt.Errorf("%s: troubleshooting steps: %w", Name, err)
	}
	lits, err := pyliteral.FuncStrings(src, stepsClass, "invoke")
	if err != nil {
		return steps{}, fmt.Errorf("%s: %s: %s.invoke: %w", Name, path, stepsClass, err)
	}
	var rets []pyliteral.StringLit
	for _, l := range lits {
		if l.Target == "return" {
			rets = append(rets, l)
		}
	}
	bad := func(why string) error {
		return fmt.Errorf("%s: %s: %s.invoke: %s (the port reads its answers by position)", Name, path, stepsClass, why)
	}
	if len(rets) != 11 {
		return steps{}, bad(fmt.Sprintf("%d return strings, want 11", len(rets)))
	}
	if !rets[0].FString {
		return steps{}, bad(fmt.Sprintf("line %d: the first return is not the not-found f-string", rets[0].Line))
	}
	for _, i := range []int{1, 2, 3, 5, 6, 8, 4, 7, 9, 10} {
		if rets[i].FString {
			return steps{}, bad(fmt.Sprintf("line %d: an f-string where a fixed answer was expected", rets[i].Line))
		}
	}
	for _, i := range []int{7, 9, 10} {
		if rets[i].Value != rets[4].Value {
			return steps{}, bad(fmt.Sprintf("line %d: the unknown-issue answers differ", rets[i].Line))
		}
	}
	return steps{
		phoneBattery: rets[1].Value, phoneNoService: rets[2].Value, phoneSlow: rets[3].Value,
		netNoService: rets[5].Value, netSlow: rets[6].Value,
		tvNoService: rets[8].Value,
		unknown:     rets[4].Value,
	}, nil
}
