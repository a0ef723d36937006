package sweep

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"time"
)

// Merge combines the results directories of a sweep's shards into out.
// Shards of different sweeps (their point hashes differ) are refused, as
// is an out directory that already holds results. Missing shards or
// unfinished ones leave the merged manifest's complete false.
func Merge(out string, dirs []string) (*Manifest, error) {
	if len(dirs) == 0 {
		return nil, fmt.Errorf("merge: no shard directories")
	}
	var ms []*Manifest
	for _, d := range dirs {
		m, err := ReadManifest(d)
		if err != nil {
			return nil, fmt.Errorf("merge: %s is not a sweep's results directory: %v", d, err)
		}
		if len(ms) > 0 && m.Hash != ms[0].Hash {
			return nil, fmt.Errorf("merge: %s is a different sweep from %s (points %s vs %s): shards merge only with shards of the same spec", d, dirs[0], m.Hash, ms[0].Hash)
		}
		ms = append(ms, m)
	}
	if _, err := os.Stat(filepath.Join(out, manifestFile)); err == nil {
		return nil, fmt.Errorf("merge: -o %s already holds a sweep's results: choose another directory", out)
	}
	if _, err := os.Stat(filepath.Join(out, resultsJSONL)); err == nil {
		return nil, fmt.Errorf("merge: -o %s already holds %s: choose another directory", out, resultsJSONL)
	}
	complete := true
	shards := map[string]string{}
	n := 0
	var sum Summary
	for i, m := range ms {
		complete = complete && m.Complete
		var sh Shard
		if m.Shard != "" {
			var err error
			if sh, err = ParseShard(m.Shard); err != nil {
				return nil, fmt.Errorf("merge: %s: %v", dirs[i], err)
			}
		} else {
			sh = Shard{1, 1}
		}
		if n == 0 {
			n = sh.N
		} else if sh.N != n {
			return nil, fmt.Errorf("merge: %s is shard %s, %s is shard %s: shards of one split merge", dirs[i], m.Shard, dirs[0], ms[0].Shard)
		}
		if prev, dup := shards[sh.String()]; dup {
			return nil, fmt.Errorf("merge: %s and %s are both shard %s", prev, dirs[i], sh)
		}
		shards[sh.String()] = dirs[i]
		sum.Points += m.Points
		sum.Ran += m.Ran
		sum.Resumed += m.Resumed
	}
	complete = complete && len(shards) == n
	byID := map[string]*Row{}
	for _, d := range dirs {
		rows, err := ReadRows(d)
		if err != nil {
			return nil, err
		}
		for _, r := range rows {
			byID[r.ID] = r
		}
	}
	var rows []*Row
	for _, r := range byID {
		rows = append(rows, r)
		if r.Status != StatusOK {
			sum.Failed++
		}
		if len(r.NotModelled) > 0 {
			sum.NotModelled++
		}
	}
	sort.Slice(rows, func(i, j int) bool { return rows[i].Index < rows[j].Index })
	if err := os.MkdirAll(out, 0o755); err != nil {
		return nil, fmt.Errorf("merge: -o %s: %v", out, err)
	}
	var buf bytes.Buffer
	for _, r := range rows {
		b, _ := json.Marshal(r)
		buf.Write(append(b, '\n'))
	}
	if err := writeAtomic(filepath.Join(out, resultsJSONL), buf.Bytes()); err != nil {
		return nil, err
	}
	spec := ms[0].Spec
	units, _ := utilKeys(rowsOf(rows))
	cols, err := writeCSV(filepath.Join(out, resultsCSV), spec, units, rowsOf(rows))
	if err != nil {
		return nil, err
	}
	m := &Manifest{Spec: spec, Hash: ms[0].Hash, Pulse: Version, Go: ms[0].Go, Host: thisHost(), Started: ms[0].Started,
		Updated: time.Now().UTC(), Complete: complete, Summary: sum, Axes: ms[0].Axes, Columns: cols, Merged: dirs}
	b, _ := json.MarshalIndent(m, "", "  ")
	return m, writeAtomic(filepath.Join(out, manifestFile), append(b, '\n'))
}
