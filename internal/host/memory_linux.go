// Package host reads facts about the machine Pulse runs on.
package host

import "syscall"

// Memory is the host's physical memory in bytes (0 if unknown).
func Memory() int64 {
	var si syscall.Sysinfo_t
	if err := syscall.Sysinfo(&si); err != nil {
		return 0
	}
	return int64(si.Totalram) * int64(si.Unit)
}
