// Package racetest splits a package's tests between the race detector and
// a plain run. The detector finds a data race only where code runs
// concurrently, at five to ten times the cost of a plain run, so a test
// that drives no goroutine of its own (or only goroutines other tests of
// its package race) gains nothing from it but time, and a sweep over every
// task or file finds no race more than a sample of it does.
//
// `make test` runs a package whose tests import this one twice: without
// -race, every test in full, and with -race, the concurrent tests with
// PlainOnly's tests skipped and Sample's sweeps cut. LEDGERBENCH_RACE_ALL=1
// runs everything in full under -race too.
package racetest

import (
	"os"
	"testing"
)

// Enabled reports whether the binary was built with -race.
const Enabled = raceEnabled

// all reports whether LEDGERBENCH_RACE_ALL asks for every test in full
// under -race.
func all() bool { return os.Getenv("LEDGERBENCH_RACE_ALL") != "" }

// Cut reports whether this run cuts the race detector's work: -race
// without LEDGERBENCH_RACE_ALL.
func Cut() bool { return Enabled && !all() }

// PlainOnly skips tb under the race detector (unless LEDGERBENCH_RACE_ALL
// is set): the test runs no code concurrently that the package's other
// tests do not race. It runs in the plain run.
func PlainOnly(tb testing.TB) {
	tb.Helper()
	if Cut() {
		tb.Skip("runs without -race (its concurrent code is raced by other tests; LEDGERBENCH_RACE_ALL=1 runs it here)")
	}
}

// Sample returns items, or under the race detector (unless
// LEDGERBENCH_RACE_ALL is set) at most n of them evenly spaced, the first
// and the last included; the plain run takes them all.
func Sample[T any](items []T, n int) []T {
	if !Cut() || len(items) <= n || n <= 0 {
		return items
	}
	if n == 1 {
		return items[:1]
	}
	out := make([]T, n)
	for i := range n {
		out[i] = items[i*(len(items)-1)/(n-1)]
	}
	return out
}
