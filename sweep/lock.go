package sweep

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"time"
)

// lockFile is the results directory's lock: held, with an exclusive
// advisory lock, by the one sweep writing there. Two sweeps on one
// directory (two requeued Slurm tasks of one shard, a --resume started
// while the first still runs) both appended to results.jsonl and both
// failed at the end; the second is now refused at once, told who holds it.
// The kernel drops the lock when its holder exits, killed or not, so a
// --resume after a kill -9 finds it free.
const lockFile = ".lock"

// dirLock is a held lock; release frees it.
type dirLock struct{ f *os.File }

func lockDir(dir string) (*dirLock, error) {
	path := filepath.Join(dir, lockFile)
	f, err := os.OpenFile(path, os.O_CREATE|os.O_RDWR, 0o644)
	if err != nil {
		return nil, fmt.Errorf("-o %s: %v", dir, err)
	}
	if err := tryLock(f); err != nil {
		holder, _ := os.ReadFile(path)
		f.Close()
		who := strings.TrimSpace(string(holder))
		if who == "" {
			who = "another process"
		}
		return nil, fmt.Errorf("-o %s is in use: %s is writing a sweep there (wait for it, or choose another directory)", dir, who)
	}
	host, _ := os.Hostname()
	if err := f.Truncate(0); err == nil {
		fmt.Fprintf(f, "pid %d on %s since %s\n", os.Getpid(), host, time.Now().UTC().Format(time.RFC3339))
	}
	return &dirLock{f}, nil
}

func (l *dirLock) release() {
	if l != nil && l.f != nil {
		unlock(l.f)
		l.f.Close()
		l.f = nil
	}
}
