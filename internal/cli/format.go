package cli

import (
	"encoding/json"
	"fmt"
	"io"
	"slices"
	"strings"

	"github.com/spf13/cobra"

	"github.com/ledgerbench/ledgerbench/internal/output/report"
)

// Output formats: a command that prints results takes --format, one of the
// formats it declares (report's names: text, json, csv, markdown), with
// --json as the alias of --format json. Its tables are rendered by
// report.WriteTables, as report's are.

// formatsAnnotation holds a command's formats, comma-separated.
const formatsAnnotation = "ledgerbench/formats"

// tableFormats are the formats of a command whose results are tables
// (JSON: its own objects, one per line).
var tableFormats = []report.Format{report.Text, report.JSON, report.CSV, report.Markdown}

// addFormatFlags gives cmd --format, bound to format (default text), and
// --json, its alias.
func addFormatFlags(cmd *cobra.Command, format *string, formats ...report.Format) {
	setFormats(cmd, formats)
	cmd.Flags().StringVar(format, "format", string(report.Text), "output format: "+joinOr(formatNames(cmd))+" (--json is --format json)")
	cmd.Flags().Bool("json", false, "same as --format json")
}

// addFormatAlias gives a command that has a --json switch and no --format a
// --format text|json (contract: --format is accepted wherever --json is).
func addFormatAlias(c *cobra.Command) {
	if c.Flags().Lookup("json") == nil || c.Flags().Lookup("format") != nil {
		return
	}
	setFormats(c, []report.Format{report.Text, report.JSON})
	c.Flags().String("format", string(report.Text), "output format: "+joinOr(formatNames(c))+" (--json is --format json)")
}

func setFormats(c *cobra.Command, formats []report.Format) {
	names := make([]string, len(formats))
	for i, f := range formats {
		names[i] = string(f)
	}
	if c.Annotations == nil {
		c.Annotations = map[string]string{}
	}
	c.Annotations[formatsAnnotation] = strings.Join(names, ",")
}

// formatNames are the formats a command declared (nil: none).
func formatNames(c *cobra.Command) []string {
	a, ok := c.Annotations[formatsAnnotation]
	if !ok {
		return nil
	}
	return strings.Split(a, ",")
}

// formatAlias checks --format against the command's formats and makes
// --json and --format json one: either sets the other.
func formatAlias(cmd *cobra.Command) error {
	names := formatNames(cmd)
	f := cmd.Flags()
	fl, js := f.Lookup("format"), f.Lookup("json")
	if names == nil || fl == nil {
		return nil
	}
	v := fl.Value.String()
	if !slices.Contains(names, v) {
		return fmt.Errorf("--format %q: %s prints %s", v, cmd.CommandPath(), joinOr(names))
	}
	if js == nil {
		return nil
	}
	isJSON, wantJSON := js.Value.String() == "true", v == string(report.JSON)
	switch {
	case js.Changed && fl.Changed && wantJSON != isJSON:
		return fmt.Errorf("--format %s and --json disagree", v)
	case isJSON && !wantJSON:
		return f.Set("format", string(report.JSON))
	case wantJSON && !isJSON:
		return f.Set("json", "true")
	}
	return nil
}

// joinOr joins words as "a, b or c".
func joinOr(words []string) string {
	if len(words) < 2 {
		return strings.Join(words, "")
	}
	return strings.Join(words[:len(words)-1], ", ") + " or " + words[len(words)-1]
}

// writeJSONLine writes v as one line of JSON.
func writeJSONLine(w io.Writer, v any) error {
	b, err := json.Marshal(v)
	if err != nil {
		return err
	}
	b = append(b, '\n')
	_, err = w.Write(b)
	return err
}
