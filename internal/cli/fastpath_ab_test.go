package cli

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"syscall"
	"testing"
	"time"

	"github.com/ledgerbench/ledgerbench/internal/core/tool"
)

// BenchmarkFastPathsAB: verify with every fast path, and with each off.
func BenchmarkFastPathsAB(b *testing.B) {
	root := pulledRoot(b)
	noIndex := pulledRoot(b)
	idx, _ := filepath.Glob(filepath.Join(noIndex, "tau2-bench", "data", "tau2", "domains", "*", "*.index"))
	for _, p := range idx {
		os.Remove(p)
	}
	b.Logf("removed %d indexes", len(idx))
	for _, c := range []struct {
		domain string
		limit  int
	}{{"airline", 5}, {"telecom", 5}, {"retail", 5}, {"telehealth", 5}, {"airline", 0}, {"telecom", 0}} {
		name := c.domain + "/limit5"
		if c.limit == 0 {
			name = c.domain + "/base"
		}
		for _, v := range []string{"all", "reflect", "gogc100", "noindex"} {
			b.Run(name+"/"+v, func(b *testing.B) {
				var out bytes.Buffer
				s := &Streams{Out: &out, ErrOut: &out}
				ctx := context.Background()
				dir := root
				switch v {
				case "reflect":
					ctx = tool.ReflectDecoding(ctx)
				case "gogc100":
					b.Setenv("GOGC", "100")
				case "noindex":
					dir = noIndex
				}
				var r0, r1 syscall.Rusage
				syscall.Getrusage(syscall.RUSAGE_SELF, &r0)
				for b.Loop() {
					out.Reset()
					if err := runVerify(ctx, s, &verifyOptions{Domains: []string{c.domain}, Limit: c.limit, DataDir: dir, Format: "text"}); err != nil {
						b.Fatalf("%v\n%s", err, out.String())
					}
				}
				syscall.Getrusage(syscall.RUSAGE_SELF, &r1)
				cpu := time.Duration(r1.Utime.Nano() + r1.Stime.Nano() - r0.Utime.Nano() - r0.Stime.Nano())
				b.ReportMetric(float64(cpu.Microseconds())/1e3/float64(b.N), "cpu-ms/run")
				reportMS(b)
			})
		}
	}
}
