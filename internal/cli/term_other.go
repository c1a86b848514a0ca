//go:build !unix

package cli

import "os"

// isTerminal reports whether f is a character device (the console).
func isTerminal(f *os.File) bool {
	fi, err := f.Stat()
	return err == nil && fi.Mode()&os.ModeCharDevice != 0
}

// terminalWidth is 0 (unknown) where the terminal cannot be asked.
func terminalWidth(*os.File) int { return 0 }
