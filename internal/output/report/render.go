package report

import (
	"encoding/csv"
	"encoding/json"
	"fmt"
	"io"
	"strings"

	"github.com/olekukonko/tablewriter"
	"github.com/olekukonko/tablewriter/renderer"
	"github.com/olekukonko/tablewriter/tw"
)

// Format is an output format.
type Format string

const (
	Text     Format = "text"
	Markdown Format = "markdown"
	CSV      Format = "csv"
	JSON     Format = "json"
)

// Formats lists the formats.
func Formats() []Format { return []Format{Text, Markdown, CSV, JSON} }

// ParseFormat checks a format name.
func ParseFormat(s string) (Format, error) {
	for _, f := range Formats() {
		if string(f) == s {
			return f, nil
		}
	}
	return "", fmt.Errorf("unknown format %q (want text, markdown, csv or json)", s)
}

// JSONReport is the JSON report: the tables the text report prints (numbers
// as numbers, missing cells null) and, when no table is selected, one object
// per run group.
type JSONReport struct {
	Tables []TableJSON `json:"tables"`
	Groups []GroupJSON `json:"groups,omitempty"`
}

// Write renders the report. ids selects tables (all when empty); JSON
// writes the selected tables, and every run group when none is selected.
func (r *Report) Write(w io.Writer, f Format, ids ...string) error {
	tables, err := r.selectTables(ids)
	if err != nil {
		return err
	}
	if f != JSON {
		return WriteTables(w, f, tables...)
	}
	out := JSONReport{Tables: machineTables(tables)}
	if len(ids) == 0 {
		out.Groups = r.JSON()
	}
	return writeJSON(w, out)
}

// WriteTables renders tables in a format, as the report renders its own:
// text and markdown tables with their notes, CSV with numbers as numbers
// (each table after a "# id: title" line when there are several), JSON as
// {"tables": [...]}. Every command that prints a table renders it here.
func WriteTables(w io.Writer, f Format, tables ...Table) error {
	if f == JSON {
		return writeJSON(w, JSONReport{Tables: machineTables(tables)})
	}
	for i, t := range tables {
		if i > 0 {
			if _, err := io.WriteString(w, "\n"); err != nil {
				return err
			}
		}
		var err error
		switch f {
		case Text:
			err = writeText(w, t)
		case Markdown:
			err = writeMarkdown(w, t)
		case CSV:
			err = writeCSV(w, t, len(tables) > 1)
		default:
			err = fmt.Errorf("unknown format %q", f)
		}
		if err != nil {
			return fmt.Errorf("render %s: %w", t.ID, err)
		}
	}
	return nil
}

func machineTables(tables []Table) []TableJSON {
	out := []TableJSON{}
	for _, t := range tables {
		out = append(out, machine(t))
	}
	return out
}

func writeJSON(w io.Writer, v JSONReport) error {
	b, err := json.MarshalIndent(v, "", "  ")
	if err != nil {
		return fmt.Errorf("encode report: %w", err)
	}
	b = append(b, '\n')
	_, err = w.Write(b)
	return err
}

func (r *Report) selectTables(ids []string) ([]Table, error) {
	if len(ids) == 0 {
		return r.Tables, nil
	}
	var out []Table
	for _, id := range ids {
		t, ok := r.Table(id)
		if !ok {
			return nil, fmt.Errorf("unknown table %q (have: %s)", id, strings.Join(TableIDs(), ", "))
		}
		out = append(out, t)
	}
	return out, nil
}

func newTable(w io.Writer, rend tw.Renderer) *tablewriter.Table {
	return tablewriter.NewTable(w,
		tablewriter.WithRenderer(rend),
		tablewriter.WithHeaderAutoFormat(tw.Off),
		tablewriter.WithHeaderAlignment(tw.AlignLeft),
		tablewriter.WithRowAlignment(tw.AlignLeft),
		tablewriter.WithHeaderAutoWrap(tw.WrapNone),
		tablewriter.WithRowAutoWrap(tw.WrapNone),
		tablewriter.WithTrimSpace(tw.Off),
	)
}

func fill(tbl *tablewriter.Table, t Table) error {
	tbl.Header(anyRow(t.Header)...)
	for _, row := range t.Rows {
		if err := tbl.Append(anyRow(row)...); err != nil {
			return err
		}
	}
	return tbl.Render()
}

func anyRow(row []string) []any {
	out := make([]any, len(row))
	for i, c := range row {
		out[i] = c
	}
	return out
}

func writeText(w io.Writer, t Table) error {
	if _, err := fmt.Fprintf(w, "%s\n", t.Title); err != nil {
		return err
	}
	if len(t.Rows) > 0 {
		rend := renderer.NewBlueprint(tw.Rendition{Symbols: tw.NewSymbols(tw.StyleASCII)})
		if err := fill(newTable(w, rend), t); err != nil {
			return err
		}
	}
	for _, n := range t.Notes {
		if _, err := fmt.Fprintf(w, "  %s\n", n); err != nil {
			return err
		}
	}
	return nil
}

func writeMarkdown(w io.Writer, t Table) error {
	if _, err := fmt.Fprintf(w, "### %s\n\n", t.Title); err != nil {
		return err
	}
	if len(t.Rows) > 0 {
		if err := fill(newTable(w, renderer.NewMarkdown()), t); err != nil {
			return err
		}
	}
	if len(t.Notes) > 0 {
		if _, err := io.WriteString(w, "\n"); err != nil {
			return err
		}
		for _, n := range t.Notes {
			if _, err := fmt.Fprintf(w, "- %s\n", strings.TrimPrefix(n, "* ")); err != nil {
				return err
			}
		}
	}
	return nil
}

// writeCSV writes a table as CSV: numbers without decorations, missing
// cells empty (null). With several tables each is preceded by a
// "# id: title" line so they can be told apart; one table (--table) is plain
// CSV.
func writeCSV(w io.Writer, t Table, labelled bool) error {
	if labelled {
		if _, err := fmt.Fprintf(w, "# %s: %s\n", t.ID, t.Title); err != nil {
			return err
		}
	}
	m := machine(t)
	cw := csv.NewWriter(w)
	if err := cw.Write(m.Header); err != nil {
		return err
	}
	for _, row := range m.Rows {
		cells := make([]string, len(row))
		for i, v := range row {
			cells[i] = csvCell(v)
		}
		if err := cw.Write(cells); err != nil {
			return err
		}
	}
	cw.Flush()
	return cw.Error()
}
