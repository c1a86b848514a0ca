package report

import (
	"fmt"
	"strconv"
)

// num is a cell computed from a number: its text, rounded for reading (and
// decorated: "12.5*", "+3.2", "12.5 (3)"), and the number at full precision
// in the unit the column names (percentages as percent), which the machine
// formats (CSV, JSON) carry instead of the rounded text.
type num struct {
	text string
	v    float64
	ok   bool // false: no number behind the text (Missing)
}

// missing is a cell without data behind it.
var missing = num{text: Missing}

// add appends a row whose cells are strings or nums.
func (t *Table) add(cells ...any) {
	row := make([]string, len(cells))
	var vals []any
	for i, c := range cells {
		switch x := c.(type) {
		case string:
			row[i] = x
		case num:
			row[i] = x.text
			if !x.ok {
				continue
			}
			if vals == nil {
				vals = make([]any, len(cells))
			}
			vals[i] = x.v
		default:
			row[i] = fmt.Sprint(x)
		}
	}
	if vals != nil {
		for len(t.Values) < len(t.Rows) {
			t.Values = append(t.Values, nil)
		}
		t.Values = append(t.Values, vals)
	}
	t.Rows = append(t.Rows, row)
}

// exact is the full-precision value of cell (i, col), nil when the cell has
// none (its text is all there is).
func (t Table) exact(i, col int) any {
	if i >= len(t.Values) || col >= len(t.Values[i]) {
		return nil
	}
	return t.Values[i][col]
}

// fixed formats x with d decimals, as a num keeping x.
func fixed(x float64, d int) num { return num{strconv.FormatFloat(x, 'f', d, 64), x, true} }

// suffixed is n with text appended to its text.
func (n num) suffixed(s string) num { n.text += s; return n }
