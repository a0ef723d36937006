// Command pulse is the Pulse simulator's command line. It is a thin layer
// over the Go packages; see internal/cli.
package main

import (
	"os"

	"github.com/pulse-sim/pulse/internal/cli"
)

func main() { os.Exit(cli.Main(os.Args[1:], os.Stdout, os.Stderr)) }
