//go:build !unix

package cli

import "os"

// terminalWidth is 0 (unknown) where the terminal cannot be asked.
func terminalWidth(*os.File) int { return 0 }
