package experiment

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"

	"github.com/ledgerbench/ledgerbench/internal/core/atomicfile"
	"github.com/ledgerbench/ledgerbench/internal/output/report"
	"github.com/ledgerbench/ledgerbench/internal/score/metrics"
)

// ReportDir is the report's folder inside Out.
const ReportDir = "report"

// WriteReport builds the report over every cell's run directory and writes
// it under Out/report: report.txt, report.md, report.json, one CSV per table
// (tables/<id>.csv) and the SVG figures (figures/). cat gives gold actions and
// tool kinds (nil: what records carry); prepare, when not nil, completes the
// loaded sources as `ledgerbench report` does (shadow gate verdicts), so the
// experiment's tables equal report's. It returns the report and the files
// written.
func WriteReport(cfg *Config, res *Result, cat metrics.Catalog, prepare func([]*report.Source)) (*report.Report, []string, error) {
	var sources []*report.Source
	for _, d := range res.Dirs() {
		src, err := report.Load(d, report.Labels{})
		if err != nil {
			return nil, nil, err
		}
		sources = append(sources, src)
	}
	if prepare != nil {
		prepare(sources)
	}
	rep := report.Build(report.Summarize(sources, cat), report.Options{Baseline: cfg.Baseline, Treatment: cfg.Treatment})
	dir := filepath.Join(cfg.Out, ReportDir)
	if err := os.MkdirAll(filepath.Join(dir, "tables"), 0o755); err != nil {
		return nil, nil, fmt.Errorf("report directory: %w", err)
	}
	var written []string
	write := func(name string, f report.Format, ids ...string) error {
		var b bytes.Buffer
		if err := rep.Write(&b, f, ids...); err != nil {
			return err
		}
		p := filepath.Join(dir, name)
		if err := atomicfile.Write(p, b.Bytes()); err != nil {
			return err
		}
		written = append(written, p)
		return nil
	}
	for _, f := range []struct {
		name string
		f    report.Format
	}{{"report.txt", report.Text}, {"report.md", report.Markdown}, {"report.json", report.JSON}} {
		if err := write(f.name, f.f); err != nil {
			return nil, nil, err
		}
	}
	for _, t := range rep.Tables { // the default tables: τ-Trait's only when the grid has trait groups
		if err := write(filepath.Join("tables", t.ID+".csv"), report.CSV, t.ID); err != nil {
			return nil, nil, err
		}
	}
	figs, err := rep.WriteFigures(filepath.Join(dir, "figures"))
	if err != nil {
		return nil, nil, err
	}
	return rep, append(written, figs...), nil
}
