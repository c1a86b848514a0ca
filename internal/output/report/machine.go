package report

import (
	"regexp"
	"strconv"
	"strings"
)

// Machine-readable tables: the text tables' cells as numbers (null when
// missing), for CSV and JSON, at full precision where the table keeps the
// number behind a rounded cell (Table.Values). A cell's decorations become
// columns or go:
// "12.5*" (incomplete, named in the notes) is 12.5, "+3.2" is 3.2, "+53.1%"
// is 53.1, "12.5 (3)" is two columns (share and count), "2/3" two columns
// (count and of how many).

var (
	shareCount = regexp.MustCompile(`^(\S+) \((\d+)\)$`)
	ofCount    = regexp.MustCompile(`^(\d+)/(\d+)$`)
	percent    = regexp.MustCompile(`^[+-]?[0-9.]+%$`)
)

// TableJSON is one table in the JSON report: the text table's header and
// rows with numbers as numbers and missing cells null.
type TableJSON struct {
	ID     string   `json:"id"`
	Title  string   `json:"title"`
	Header []string `json:"header"`
	Rows   [][]any  `json:"rows"`
	Notes  []string `json:"notes"`
}

// value is a cell as a number, nil when missing or empty, else its text.
func value(c string) any {
	if c == "" || c == Missing {
		return nil
	}
	n := strings.TrimSuffix(strings.TrimSuffix(strings.TrimPrefix(c, "+"), "*"), "%")
	if f, err := strconv.ParseFloat(n, 64); err == nil {
		return f
	}
	return c
}

// machine converts a table: columns whose every cell is "share (count)" or
// "count/of" split in two; every cell becomes a value.
func machine(t Table) TableJSON {
	out := TableJSON{ID: t.ID, Title: t.Title, Rows: make([][]any, len(t.Rows)), Notes: nonNil(t.Notes)}
	split := func(re *regexp.Regexp, col int) bool {
		seen := false
		for _, row := range t.Rows {
			if col >= len(row) || row[col] == "" || row[col] == Missing {
				continue
			}
			if !re.MatchString(row[col]) {
				return false
			}
			seen = true
		}
		return seen
	}
	for col, h := range t.Header {
		var re *regexp.Regexp
		second := ""
		switch {
		case split(shareCount, col):
			re, second = shareCount, h+" n"
		case split(ofCount, col):
			re, second = ofCount, h+" of"
		}
		if split(percent, col) {
			h += " (%)"
		}
		out.Header = append(out.Header, h)
		if re != nil {
			out.Header = append(out.Header, second)
		}
		for i, row := range t.Rows {
			c := ""
			if col < len(row) {
				c = row[col]
			}
			exact := t.exact(i, col)
			if re == nil {
				if exact != nil {
					out.Rows[i] = append(out.Rows[i], exact)
				} else {
					out.Rows[i] = append(out.Rows[i], value(c))
				}
				continue
			}
			m := re.FindStringSubmatch(c)
			if m == nil {
				out.Rows[i] = append(out.Rows[i], nil, nil)
				continue
			}
			first := value(m[1])
			if exact != nil {
				first = exact
			}
			out.Rows[i] = append(out.Rows[i], first, value(m[2]))
		}
	}
	return out
}

// csvCell is a value as a CSV cell: numbers in Go's shortest form, null as
// an empty cell.
func csvCell(v any) string {
	switch x := v.(type) {
	case nil:
		return ""
	case float64:
		return strconv.FormatFloat(x, 'f', -1, 64)
	case string:
		return x
	}
	return ""
}
