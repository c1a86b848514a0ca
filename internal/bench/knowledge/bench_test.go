package knowledge

import (
	"encoding/json"
	"os"
	"sync"
	"testing"
	"time"

	"github.com/ledgerbench/ledgerbench/internal/core/oracletest"
	"github.com/ledgerbench/ledgerbench/internal/core/rusage"
)

// benchQueries are the queries BenchmarkBM25Query answers (and upstream's
// timing is taken on).
var benchQueries = []string{
	"overdraft fee",
	"credit card annual fee waiver",
	"how do I dispute a transaction on my Gold Rewards card",
	"replace lost debit card",
}

// reportCPU reports the CPU time per operation since start (rusage.CPU:
// user and system, every thread, the GC's work too): on a machine other
// jobs share, wall time measures the queue as much as the work. It
// reports nothing, and returns 0, where the system does not count it.
func reportCPU(b *testing.B, start time.Duration) float64 {
	if _, ok := rusage.Self(); !ok {
		return 0
	}
	ns := float64(rusage.CPU()-start) / float64(b.N)
	b.ReportMetric(ns, "cpu-ns/op")
	return ns
}

// reportUpstream runs testdata/oracle/bm25_timing.py (upstream's
// BM25Indexer and BM25Retriever on the same documents and queries) when
// LEDGERBENCH_BM25_TIMING holds its command line, e.g.
//
//	TAU2_SRC=… RANK_BM25_SRC=… LEDGERBENCH_BM25_TIMING="python3 testdata/oracle/bm25_timing.py" \
//	go test -run '^$' -bench BM25 ./internal/bench/knowledge
//
// It reports upstream's wall and CPU time per operation beside ours, with
// the ratios (x-faster: wall, x-faster-cpu: CPU time), and logs the Python
// and numpy versions timed, on which upstream's time depends.
func reportUpstream(b *testing.B, key string, cpu float64) {
	cmdline := os.Getenv("LEDGERBENCH_BM25_TIMING")
	if cmdline == "" {
		return
	}
	timings := timingOnce.get(b, cmdline)
	up, upCPU := timings.of(key)
	b.Logf("upstream timed on Python %s, numpy %s", timings.Python, timings.Numpy)
	ours := float64(b.Elapsed().Nanoseconds()) / float64(b.N)
	b.ReportMetric(up, "upstream-ns/op")
	b.ReportMetric(up/ours, "x-faster")
	b.ReportMetric(upCPU, "upstream-cpu-ns/op")
	if cpu > 0 {
		b.ReportMetric(upCPU/cpu, "x-faster-cpu")
	}
}

// upstreamTiming is bm25_timing.py's output.
type upstreamTiming struct {
	BuildNs    float64 `json:"build_ns"`
	QueryNs    float64 `json:"query_ns"`
	BuildCPUNs float64 `json:"build_cpu_ns"`
	QueryCPUNs float64 `json:"query_cpu_ns"`
	Python     string  `json:"python"`
	Numpy      string  `json:"numpy"`
}

// of is the wall and CPU time of key ("build" or "query").
func (u *upstreamTiming) of(key string) (wall, cpu float64) {
	if key == "build" {
		return u.BuildNs, u.BuildCPUNs
	}
	return u.QueryNs, u.QueryCPUNs
}

type timingCache struct {
	once sync.Once
	v    *upstreamTiming
}

var timingOnce timingCache

func (c *timingCache) get(b *testing.B, cmdline string) *upstreamTiming {
	c.once.Do(func() {
		_, dir := realBase(b)
		out := oracletest.Output(b, cmdline, nil, os.Stderr, append([]string{dir}, benchQueries...)...)
		if err := json.Unmarshal(out, &c.v); err != nil {
			b.Fatalf("timing output %q: %v", out, err)
		}
	})
	return c.v
}

// BenchmarkBM25Build: tokenising the 698 documents and building the index
// (upstream's BM25Indexer.process).
func BenchmarkBM25Build(b *testing.B) {
	base, _ := realBase(b)
	texts := make([]string, base.Len())
	for i, d := range base.Docs() {
		texts[i] = d.Content
	}
	b.ReportAllocs()
	b.ResetTimer()
	start := rusage.CPU()
	for b.Loop() {
		NewBM25(texts)
	}
	reportUpstream(b, "build", reportCPU(b, start))
}

// BenchmarkBM25Query: one query's top 10 (upstream's BM25Retriever.retrieve),
// averaged over benchQueries.
func BenchmarkBM25Query(b *testing.B) {
	base, _ := realBase(b)
	p, err := NewPipeline(base, DefaultPipeline(TypeBM25), Deps{})
	if err != nil {
		b.Fatal(err)
	}
	b.ReportAllocs()
	b.ResetTimer()
	i := 0
	start := rusage.CPU()
	for b.Loop() {
		p.bm25.Top(benchQueries[i%len(benchQueries)], 10)
		i++
	}
	reportUpstream(b, "query", reportCPU(b, start))
}
