package tautraittelecom

import (
	"context"
	"fmt"
	"os"
	"path/filepath"

	"github.com/ledgerbench/ledgerbench/internal/bench/envs/tauv1"
	"github.com/ledgerbench/ledgerbench/internal/py/pyjson"
	"github.com/ledgerbench/ledgerbench/internal/py/pyliteral"
	"github.com/ledgerbench/ledgerbench/internal/py/pyops"
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

// issues are the values of troubleshoot_device.py's Issue enum, in
// definition order.
var issues = []string{"no_service", "slow_speeds", "battery_drain"}

// troubleshoot is troubleshoot_device's invoke: Issue(issue) first (a value
// lookup, else ValueError), then the device, then the answer for its
// category and the issue.
func (st *steps) troubleshoot(_ context.Context, e *tauv1.Env, a troubleshootArgs) (any, error) {
	issue := ""
	for _, v := range issues {
		if pyops.Eq(a.Issue.V, v) {
			issue = v
		}
	}
	if issue == "" {
		return nil, pyops.ValueError(pyjson.Repr(a.Issue.V) + " is not a valid Issue")
	}
	devices := catalog(e, "devices")
	k, ok, err := catalogKey(devices, a.DeviceName.V)
	if err != nil {
		return nil, err
	}
	if !ok {
		return "Error: Device not found: " + str(a.DeviceName.V), nil
	}
	dev, _ := devices.Get(k)
	cat, _, err := dget(dev, "category", "")
	if err != nil {
		return nil, err
	}
	switch {
	case pyops.Eq(cat, "mobile_phone") || pyops.Eq(cat, "phone"):
		switch issue {
		case "battery_drain":
			return st.phoneBattery, nil
		case "no_service":
			return st.phoneNoService, nil
		case "slow_speeds":
			return st.phoneSlow, nil
		}
	case pyops.Eq(cat, "networking"):
		switch issue {
		case "no_service":
			return st.netNoService, nil
		case "slow_speeds":
			return st.netSlow, nil
		}
	case pyops.Eq(cat, "tv"):
		if issue == "no_service" {
			return st.tvNoService, nil
		}
		// `issue == Issue.NO_SERVICE or issue == Issue.NO_SIGNAL`: the enum
		// has no NO_SIGNAL (CPython 3.11's EnumType.__getattr__ text).
		return nil, &pyops.Error{Type: "AttributeError", Msg: "NO_SIGNAL"}
	}
	return st.unknown, nil
}
