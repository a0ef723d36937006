package sweep

import (
	"bufio"
	"bytes"
	"encoding/csv"
	"encoding/json"
	"errors"
	"fmt"
	"github.com/pulse-sim/pulse/lowering"
	"io"
	"maps"
	"os"
	"path/filepath"
	goruntime "runtime"
	"slices"
	"sort"
	"strings"
	"sync"
	"time"

	"github.com/pulse-sim/pulse/internal/host"
	"github.com/pulse-sim/pulse/traces"
)

// Row is one finished point: a line of results.jsonl.
type Row struct {
	Index    int                  `json:"index"`
	ID       string               `json:"id"`
	Workload string               `json:"workload"`
	Axes     map[string]string    `json:"axes"`
	Status   string               `json:"status"`
	Error    string               `json:"error,omitempty"`
	Metrics  map[string]float64   `json:"metrics,omitempty"`
	Kernels  []traces.KernelStats `json:"kernels,omitempty"`
	// NotModelled is the workload's work its cycles leave out (host
	// offload transfers), from the compiled module: absent when none.
	NotModelled []lowering.NotModelled `json:"not_modelled,omitempty"`
	// WallSeconds is host time (compile and simulation): it is in
	// results.jsonl only, so results.csv is the same bytes on every run.
	WallSeconds float64 `json:"wall_seconds"`
}

// Manifest is DIR/sweep.json.
type Manifest struct {
	Spec     *Spec     `json:"spec"`
	Hash     string    `json:"hash"` // the sweep's points (Plan.Hash)
	Shard    string    `json:"shard,omitempty"`
	Pulse    string    `json:"pulse_version"`
	Go       string    `json:"go_version"`
	Host     HostInfo  `json:"host"`
	Started  time.Time `json:"started"`
	Updated  time.Time `json:"updated"`
	Complete bool      `json:"complete"` // every point of the shard has a row
	Summary
	Axes    []string `json:"axes"`             // the axis keys, in order
	Columns []string `json:"columns"`          // results.csv's header
	Merged  []string `json:"merged,omitempty"` // shard directories merged into this one
}

// HostInfo describes the machine that ran a sweep.
type HostInfo struct {
	Name        string `json:"name"`
	OS          string `json:"os"`
	Arch        string `json:"arch"`
	CPUs        int    `json:"cpus"`
	MemoryBytes int64  `json:"memory_bytes"`
}

// Version is the Pulse version manifests record (set by the command).
var Version = "devel"

func thisHost() HostInfo {
	name, _ := os.Hostname()
	return HostInfo{Name: name, OS: goruntime.GOOS, Arch: goruntime.GOARCH, CPUs: goruntime.NumCPU(), MemoryBytes: host.Memory()}
}

// store is a results directory being written.
type store struct {
	dir   string
	plan  *Plan
	shard Shard
	f     *os.File
	mu    sync.Mutex
	// done holds, by point ID, where each row is in results.jsonl and
	// whether it is ok: a few dozen bytes a point, not the row, so memory
	// stays flat however many points a sweep has.
	done map[string]rowRef
	// unitSets holds the distinct lists of utilization metrics rows have
	// (rowRef.units indexes it), so that results.csv's columns are known
	// without reading every row once more.
	unitSets [][]string
	unitSet  map[string]int32
	size     int64 // results.jsonl's length
	started  time.Time
	lock     *dirLock
}

type rowRef struct {
	off         int64
	n           int32
	ok          bool
	notModelled bool  // the row lists work its cycles leave out
	units       int32 // the row's utilization metrics: store.unitSets[units]
}

// refOf is where row r is (off, n bytes) and what finish needs of it.
// The caller holds s.mu or owns s.
func (s *store) refOf(r *Row, off int64, n int) rowRef {
	us := rowUnits(r)
	key := strings.Join(us, ",")
	i, ok := s.unitSet[key]
	if !ok {
		i = int32(len(s.unitSets))
		s.unitSets = append(s.unitSets, us)
		s.unitSet[key] = i
	}
	return rowRef{off, int32(n), r.Status == StatusOK, len(r.NotModelled) > 0, i}
}

const (
	resultsJSONL = "results.jsonl"
	resultsCSV   = "results.csv"
	manifestFile = "sweep.json"
)

// openStore checks and opens dir before any point runs: a directory that
// already holds another sweep, or this one's results without --resume, is
// an error (nothing is overwritten).
func openStore(dir string, plan *Plan, shard Shard, resume bool) (st *store, err error) {
	if dir == "" {
		return nil, fmt.Errorf("no results directory: give -o DIR")
	}
	if fi, err := os.Stat(dir); err == nil && !fi.IsDir() {
		return nil, fmt.Errorf("-o %s: not a directory", dir)
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, fmt.Errorf("-o %s: %v", dir, err)
	}
	lock, err := lockDir(dir)
	if err != nil {
		return nil, err
	}
	defer func() {
		if st == nil {
			lock.release()
		}
	}()
	s := &store{dir: dir, plan: plan, shard: shard, done: map[string]rowRef{}, unitSet: map[string]int32{}, started: time.Now().UTC(), lock: lock}
	path := filepath.Join(dir, resultsJSONL)
	if m, err := ReadManifest(dir); err == nil {
		if !resume {
			return nil, fmt.Errorf("-o %s already holds a sweep's results: --resume to continue it, or choose another directory", dir)
		}
		if m.Hash != plan.Hash || m.Shard != shard.String() {
			return nil, fmt.Errorf("-o %s holds a different sweep (points %s, shard %q; this one: %s, %q): choose another directory", dir, m.Hash, m.Shard, plan.Hash, shard.String())
		}
		s.started = m.Started
	} else if _, err := os.Stat(path); err == nil && !resume {
		return nil, fmt.Errorf("-o %s already holds %s: --resume to continue it, or choose another directory", dir, resultsJSONL)
	}
	if resume {
		good, err := scanRows(path, func(r *Row, off int64, n int) {
			s.done[r.ID] = s.refOf(r, off, n)
		})
		if err != nil && !errors.Is(err, os.ErrNotExist) {
			return nil, err
		}
		// A sweep killed while writing leaves a partial last line: cut it.
		if err == nil {
			if err := os.Truncate(path, good); err != nil {
				return nil, err
			}
			s.size = good
		}
	}
	f, err := os.OpenFile(path, os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o644)
	if err != nil {
		return nil, fmt.Errorf("-o %s: %v", dir, err)
	}
	s.f = f
	return s, nil
}

// append writes a finished point as one line, in one write, so a killed
// sweep loses at most the points in flight.
func (s *store) append(r *Row) error {
	b, err := json.Marshal(r)
	if err != nil {
		return err
	}
	b = append(b, '\n')
	s.mu.Lock()
	defer s.mu.Unlock()
	if _, err := s.f.Write(b); err != nil {
		return fmt.Errorf("%s: %v", filepath.Join(s.dir, resultsJSONL), err)
	}
	s.done[r.ID] = s.refOf(r, s.size, len(b))
	s.size += int64(len(b))
	return nil
}

func (s *store) close() {
	s.f.Close()
	s.lock.release()
}

// finishChunk is how many rows finish decodes at once.
const finishChunk = 4096

// readRow reads point p's row from results.jsonl (r); nil when the point
// has none.
func (s *store) readRow(r *os.File, p *Point) (*Row, error) {
	ref, ok := s.done[p.ID]
	if !ok {
		return nil, nil
	}
	b := make([]byte, ref.n)
	if _, err := r.ReadAt(b, ref.off); err != nil {
		return nil, err
	}
	var row Row
	if err := json.Unmarshal(b, &row); err != nil {
		return nil, fmt.Errorf("%s: %v", filepath.Join(s.dir, resultsJSONL), err)
	}
	row.Index = p.Index // the same point may have had another index in an edited spec
	return &row, nil
}

// finish writes results.csv (the shard's points in order, read back from
// results.jsonl one at a time) and sweep.json.
func (s *store) finish(points []*Point, sum *Summary) error {
	r, err := os.Open(filepath.Join(s.dir, resultsJSONL))
	if err != nil {
		return err
	}
	defer r.Close()
	found := 0
	each := func(f func(*Row)) error {
		found = 0
		// Rows are decoded a chunk at a time over the cores (decoding is
		// most of the time results.csv takes), then handed on in order.
		rows := make([]*Row, min(finishChunk, len(points)))
		errs := make([]error, len(rows))
		for lo := 0; lo < len(points); lo += finishChunk {
			ps := points[lo:min(lo+finishChunk, len(points))]
			parallel(len(ps), func(i int) { rows[i], errs[i] = s.readRow(r, ps[i]) })
			for i := range ps {
				if errs[i] != nil {
					return errs[i]
				}
				if rows[i] != nil {
					found++
					f(rows[i])
				}
			}
		}
		return nil
	}
	units := map[string]bool{}
	for _, p := range points {
		if ref, ok := s.done[p.ID]; ok {
			for _, u := range s.unitSets[ref.units] {
				units[u] = true
			}
		}
	}
	cols, err := writeCSV(filepath.Join(s.dir, resultsCSV), s.plan.Spec, slices.Collect(maps.Keys(units)), each)
	if err != nil {
		return err
	}
	return s.manifest(sum, found == len(points), cols, nil)
}

func (s *store) writeManifest(sum *Summary, complete bool) error {
	return s.manifest(sum, complete, nil, nil)
}

func (s *store) manifest(sum *Summary, complete bool, cols, merged []string) error {
	m := Manifest{Spec: s.plan.Spec, Hash: s.plan.Hash, Shard: s.shard.String(), Pulse: Version, Go: goruntime.Version(),
		Host: thisHost(), Started: s.started, Updated: time.Now().UTC(), Complete: complete, Summary: *sum, Columns: cols, Merged: merged}
	for _, a := range s.plan.Spec.Axes {
		m.Axes = append(m.Axes, a.Key)
	}
	b, _ := json.MarshalIndent(m, "", "  ")
	return writeAtomic(filepath.Join(s.dir, manifestFile), append(b, '\n'))
}

// ReadManifest reads DIR/sweep.json.
func ReadManifest(dir string) (*Manifest, error) {
	b, err := os.ReadFile(filepath.Join(dir, manifestFile))
	if err != nil {
		return nil, err
	}
	var m Manifest
	if err := json.Unmarshal(b, &m); err != nil {
		return nil, fmt.Errorf("%s: %v", filepath.Join(dir, manifestFile), err)
	}
	return &m, nil
}

// ReadRows reads DIR/results.jsonl (a partial last line is left out).
func ReadRows(dir string) ([]*Row, error) {
	rows, _, err := readRows(filepath.Join(dir, resultsJSONL))
	return rows, err
}

// readRows returns the complete rows and the byte length they span.
func readRows(path string) ([]*Row, int64, error) {
	var rows []*Row
	good, err := scanRows(path, func(r *Row, _ int64, _ int) { rows = append(rows, r) })
	return rows, good, err
}

// scanRows calls f on every complete line of a results.jsonl with its
// offset and length, and returns the length the complete lines span.
func scanRows(path string, f func(r *Row, off int64, n int)) (int64, error) {
	fh, err := os.Open(path)
	if err != nil {
		return 0, err
	}
	defer fh.Close()
	var good int64
	br := bufio.NewReaderSize(fh, 1<<16)
	line := 0
	for {
		b, err := br.ReadBytes('\n')
		if len(b) > 0 && b[len(b)-1] == '\n' {
			line++
			var r Row
			if jerr := json.Unmarshal(b, &r); jerr != nil {
				return 0, fmt.Errorf("%s:%d: %v", path, line, jerr)
			}
			f(&r, good, len(b))
			good += int64(len(b))
		}
		if err == io.EOF {
			return good, nil
		}
		if err != nil {
			return 0, err
		}
	}
}

// csvColumns is results.csv's header: workload, the axes, status, the
// metrics (the spec's, or DefaultMetrics and every unit's utilization),
// error.
func csvColumns(spec *Spec, units []string) []string {
	cols := []string{"workload"}
	for _, a := range spec.Axes {
		cols = append(cols, a.Key)
	}
	cols = append(cols, "status")
	if len(spec.Metrics) > 0 {
		cols = append(cols, spec.Metrics...)
	} else {
		cols = append(cols, DefaultMetrics...)
		us := append([]string(nil), units...)
		sort.Slice(us, func(i, j int) bool { return unitLess(us[i], us[j]) })
		cols = append(cols, us...)
	}
	return append(cols, "error")
}

// utilKeys lists the units' utilization metrics (util.*) the rows hold,
// for csvColumns.
func utilKeys(each func(func(*Row)) error) ([]string, error) {
	units := map[string]bool{}
	err := each(func(r *Row) {
		for _, k := range rowUnits(r) {
			units[k] = true
		}
	})
	return slices.Collect(maps.Keys(units)), err
}

// rowUnits is a row's utilization metrics (util.*), sorted.
func rowUnits(r *Row) []string {
	var us []string
	for k := range r.Metrics {
		if strings.HasPrefix(k, "util.") {
			us = append(us, k)
		}
	}
	sort.Strings(us)
	return us
}

// rowsOf iterates over rows in memory.
func rowsOf(rows []*Row) func(func(*Row)) error {
	return func(f func(*Row)) error {
		for _, r := range rows {
			f(r)
		}
		return nil
	}
}

// unitLess orders unit names by class, then number (mxu2 before mxu10).
func unitLess(a, b string) bool {
	ta, na := splitNum(a)
	tb, nb := splitNum(b)
	if ta != tb {
		return ta < tb
	}
	return na < nb
}

func splitNum(s string) (string, int) {
	i := len(s)
	for i > 0 && s[i-1] >= '0' && s[i-1] <= '9' {
		i--
	}
	n := 0
	fmt.Sscan(s[i:], &n)
	return s[:i], n
}

// writeCSV writes results.csv from rows in point order (each visits them,
// twice: once for the columns, once for the records).
func writeCSV(path string, spec *Spec, units []string, each func(func(*Row)) error) ([]string, error) {
	cols := csvColumns(spec, units)
	var buf bytes.Buffer
	w := csv.NewWriter(&buf)
	w.Write(cols)
	err := each(func(r *Row) {
		rec := []string{r.Workload}
		for _, a := range spec.Axes {
			rec = append(rec, r.Axes[a.Key])
		}
		rec = append(rec, r.Status)
		for _, c := range cols[len(spec.Axes)+2 : len(cols)-1] {
			if v, ok := r.Metrics[c]; ok {
				rec = append(rec, fmtMetric(v))
			} else {
				rec = append(rec, "")
			}
		}
		rec = append(rec, firstLine(r.Error))
		w.Write(rec)
	})
	if err != nil {
		return nil, err
	}
	w.Flush()
	return cols, writeAtomic(path, buf.Bytes())
}

// writeAtomic replaces path with b through a temporary file, so a reader
// (or a crash) never sees half a file.
func writeAtomic(path string, b []byte) error {
	tmp := path + ".tmp"
	if err := os.WriteFile(tmp, b, 0o644); err != nil {
		return err
	}
	return os.Rename(tmp, path)
}
