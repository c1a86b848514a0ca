//go:build !unix

package rusage

import "os"

func self() (Usage, bool) { return Usage{}, false }

func of(*os.ProcessState) (Usage, bool) { return Usage{}, false }
