// Package oracletest runs the external reference implementations ("oracles")
// of the opt-in differential tests: a command line from an environment
// variable (LEDGERBENCH_*_ORACLE), fed JSON on stdin, answering JSON on
// stdout. Tests skip when the variable is unset; see internal/bench/envs/retail's
// oracle_test.go for the pattern.
package oracletest

import (
	"bytes"
	"encoding/json"
	"io"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"testing"
)

// Output runs cmdline (split at spaces) with args appended and stdin (nil:
// none) as its standard input, passes its standard error to stderr (nil:
// dropped) and returns its standard output. A failing command fails the
// test.
func Output(tb testing.TB, cmdline string, stdin []byte, stderr io.Writer, args ...string) []byte {
	tb.Helper()
	fields := strings.Fields(cmdline)
	if len(fields) == 0 {
		tb.Fatalf("oracle: empty command line")
	}
	cmd := exec.Command(fields[0], append(fields[1:], args...)...)
	if stdin != nil {
		cmd.Stdin = bytes.NewReader(stdin)
	}
	cmd.Stderr = stderr
	out, err := cmd.Output()
	if err != nil {
		tb.Fatalf("oracle: %v", err)
	}
	return out
}

// JSON runs cmdline with in JSON-encoded on its standard input (its
// standard error passed through) and decodes its standard output into out.
func JSON(tb testing.TB, cmdline string, in, out any) {
	tb.Helper()
	b, err := json.Marshal(in)
	if err != nil {
		tb.Fatal(err)
	}
	if err := json.Unmarshal(Output(tb, cmdline, b, os.Stderr), out); err != nil {
		tb.Fatalf("oracle output: %v", err)
	}
}

// EnvInt is the integer an environment variable holds (an oracle test's
// count or seed), def when it is unset; a value that is not an integer
// fails the test.
func EnvInt(tb testing.TB, name string, def int) int {
	tb.Helper()
	s := os.Getenv(name)
	if s == "" {
		return def
	}
	n, err := strconv.Atoi(s)
	if err != nil {
		tb.Fatalf("%s=%q: %v", name, s, err)
	}
	return n
}
