// Command ledgerbench reproduces and extends the LedgerAgent experiments on
// τ²-bench and τ-Trait. See the README for the commands.
package main

import (
	"os"

	"github.com/ledgerbench/ledgerbench/internal/cli"
)

func main() {
	os.Exit(cli.Main())
}
