package cli

import (
	"fmt"
	"io"
	"os"
	"os/signal"
	"runtime/pprof"
	"sync"
)

// hostProfile starts a CPU profile of Pulse itself (the host's time, not
// the simulated chip's: that is --pprof) when PULSE_CPUPROFILE names a
// file, for work on the simulator's speed; it returns the function that
// ends it, or nil.
func hostProfile(stderr io.Writer) (stop func()) {
	path := os.Getenv("PULSE_CPUPROFILE")
	if path == "" {
		return nil
	}
	f, err := os.Create(path)
	if err != nil {
		fmt.Fprintf(stderr, "pulse: PULSE_CPUPROFILE: %v\n", err)
		return nil
	}
	if err := pprof.StartCPUProfile(f); err != nil {
		f.Close()
		fmt.Fprintf(stderr, "pulse: PULSE_CPUPROFILE: %v\n", err)
		return nil
	}
	var once sync.Once
	stop = func() {
		once.Do(func() {
			pprof.StopCPUProfile()
			f.Close()
		})
	}
	// A profile of a run cut short (timeout -s INT) is still written.
	sig := make(chan os.Signal, 1)
	signal.Notify(sig, os.Interrupt)
	go func() {
		<-sig
		stop()
		os.Exit(130)
	}()
	return stop
}
