package cli

import (
	"fmt"
	"io"
	"strconv"
	"unicode/utf8"
)

// Terminal behaviour: stdout and stderr are told apart (the progress bar
// draws on stderr, so stderr's TTY-ness decides it), the bar fits the
// terminal's width (80 columns when unknown), and retries and cache
// problems go through the same locked stderr writer as the bar, clearing
// the bar's line first so nothing is drawn over.

// defaultWidth is the width assumed when the terminal's is unknown.
const defaultWidth = 80

// width is the terminal width for lines drawn on stderr: Streams.Width,
// else $COLUMNS, else 80.
func (s *Streams) width() int {
	if s.Width > 0 {
		return s.Width
	}
	if s.Getenv != nil {
		if n, err := strconv.Atoi(s.Getenv("COLUMNS")); err == nil && n > 0 {
			return n
		}
	}
	return defaultWidth
}

// fitLine cuts a line to fewer than width columns (the last column stays
// free so the terminal does not wrap), ending a cut line with "…".
func fitLine(line string, width int) string {
	if width < 2 || utf8.RuneCountInString(line) < width {
		return line
	}
	runes := []rune(line)
	return string(runes[:width-2]) + "…"
}

// stderrLogf is llm.Options.Logf for a run: one line per event on the
// locked stderr writer, after clearing a progress bar's line on a terminal.
func stderrLogf(w io.Writer, tty bool) func(format string, args ...any) {
	return func(format string, args ...any) {
		msg := fmt.Sprintf(format, args...)
		if tty {
			msg = "\r\033[K" + msg
		}
		fmt.Fprintln(w, msg)
	}
}

// prefixWriter starts every line written through it with a label (an
// experiment's cell), so cells running at once can be told apart.
type prefixWriter struct {
	w      io.Writer
	prefix string
	mid    bool // inside a line
}

func (p *prefixWriter) Write(b []byte) (int, error) {
	var out []byte
	for _, c := range b {
		if !p.mid && c != '\r' {
			out = append(out, p.prefix...)
			p.mid = true
		}
		out = append(out, c)
		if c == '\n' {
			p.mid = false
		}
	}
	if _, err := p.w.Write(out); err != nil {
		return 0, err
	}
	return len(b), nil
}
