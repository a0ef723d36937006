package runtime

import (
	"os"
	"path/filepath"
	"sort"
	"strings"
	"time"

	"github.com/pulse-sim/pulse/exe"
	"github.com/pulse-sim/pulse/internal/inputs"
)

// DefaultCacheBytes bounds the compile cache when Client.CacheBytes is 0.
// Executables of real models are a few MB; one test session wrote 331 MB
// when the cache had no bound.
const DefaultCacheBytes = 256 << 20

// cacheGet reads the executable of key, marking it used (its time is the
// eviction order); nil when absent or unreadable.
func (c *Client) cacheGet(key string) *exe.Program {
	path := filepath.Join(c.CacheDir, key+".pulse")
	b, err := inputs.ReadFile(path, inputs.Sources)
	if err != nil {
		return nil
	}
	p, err := exe.Unmarshal(b)
	if err != nil {
		return nil
	}
	now := time.Now()
	os.Chtimes(path, now, now)
	return p
}

// cachePut writes the executable of key (through a temporary file of its
// own, so that two processes compiling at once never leave a torn file),
// then evicts the least recently used entries beyond the bound. The cache
// is a convenience: every failure here leaves it as it was.
func (c *Client) cachePut(key string, p *exe.Program) {
	b, err := p.Marshal()
	if err != nil || os.MkdirAll(c.CacheDir, 0o755) != nil {
		return
	}
	tmp, err := os.CreateTemp(c.CacheDir, key+".*.tmp")
	if err != nil {
		return
	}
	_, werr := tmp.Write(b)
	cerr := tmp.Close()
	if werr != nil || cerr != nil || os.Rename(tmp.Name(), filepath.Join(c.CacheDir, key+".pulse")) != nil {
		os.Remove(tmp.Name())
		return
	}
	c.evict()
}

// evict removes the least recently used executables until the cache holds
// at most three quarters of its bound (so that it is not swept again at
// the next compile), and temporary files an interrupted write left.
func (c *Client) evict() {
	limit := c.CacheBytes
	if limit <= 0 {
		limit = DefaultCacheBytes
	}
	entries, err := os.ReadDir(c.CacheDir)
	if err != nil {
		return
	}
	type file struct {
		path string
		size int64
		used time.Time
	}
	var files []file
	var total int64
	for _, e := range entries {
		info, err := e.Info()
		if err != nil || !info.Mode().IsRegular() {
			continue
		}
		path := filepath.Join(c.CacheDir, e.Name())
		if strings.HasSuffix(e.Name(), ".tmp") && time.Since(info.ModTime()) > time.Hour {
			os.Remove(path)
			continue
		}
		if !strings.HasSuffix(e.Name(), ".pulse") {
			continue
		}
		files = append(files, file{path, info.Size(), info.ModTime()})
		total += info.Size()
	}
	if total <= limit {
		return
	}
	sort.Slice(files, func(i, j int) bool {
		if !files[i].used.Equal(files[j].used) {
			return files[i].used.Before(files[j].used)
		}
		return files[i].path < files[j].path
	})
	for _, f := range files {
		if total <= limit/4*3 {
			break
		}
		if os.Remove(f.path) == nil {
			total -= f.size
		}
	}
}
