package cli

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"github.com/pulse-sim/pulse/hlo"
	"github.com/pulse-sim/pulse/hlo/eval"
	"github.com/pulse-sim/pulse/internal/inputs"
	"github.com/pulse-sim/pulse/internal/npy"
	"github.com/pulse-sim/pulse/isa"
	"github.com/spf13/cobra"
)

// feedFlags give a module's infeed queue its records: from a directory of
// .npy files or random. Outfeed records are written beside the outputs.
type feedFlags struct {
	dir    string
	random int
}

func (f *feedFlags) register(cmd *cobra.Command) {
	cmd.Flags().StringVar(&f.dir, "infeed", "", "the infeed queue's records: DIR/0.npy, DIR/1.npy, ... (a tuple record as DIR/0.0.npy, DIR/0.1.npy, ...)")
	cmd.Flags().IntVar(&f.random, "random-infeed", 0, "queue this many random infeed records (from the --random-inputs seed, 0 without it)")
}

// maxRecords bounds the records a directory or --random-infeed may give.
const maxRecords = 1 << 20

// records returns the infeed records the flags give, checked against the
// module's infeed shapes and, with the arguments, against limit float64
// elements (the --max-memory budget).
func (f *feedFlags) records(m *hlo.Module, seed, limit int64) ([]*eval.Value, error) {
	shapes := eval.InfeedShapes(m)
	switch {
	case f.dir != "" && f.random != 0:
		return nil, usagef("--infeed and --random-infeed both give the infeed records: give one")
	case f.random < 0 || f.random > maxRecords:
		return nil, usagef("--random-infeed %d: give 1 to %d records", f.random, maxRecords)
	case (f.dir != "" || f.random != 0) && len(shapes) == 0:
		return nil, usagef("the module has no infeed: drop --infeed and --random-infeed")
	case f.random != 0:
		if n := shapes[0].Elems(); len(shapes) == 1 && n > 0 && int64(f.random) > limit/n {
			return nil, fmt.Errorf("--random-infeed %d: records of %s (%d elements each) beyond %d take more than --max-memory allows", f.random, shapes[0], n, limit/n)
		}
		recs, err := eval.RandomInfeed(m, uint64(seed), f.random)
		if err != nil {
			return nil, fmt.Errorf("--random-infeed: %v", err)
		}
		return recs, nil
	case f.dir == "":
		return nil, nil
	}
	if st, err := os.Stat(f.dir); err != nil || !st.IsDir() {
		return nil, fmt.Errorf("--infeed %s: not a directory of .npy records", f.dir)
	}
	var recs []*eval.Value
	var elems int64
	for i := 0; ; i++ {
		r, err := readRecord(f.dir, i, shapes)
		if err != nil {
			return nil, fmt.Errorf("--infeed %s: %v", f.dir, err)
		}
		if r == nil {
			break
		}
		if elems += r.Shape.Elems(); elems > limit {
			return nil, fmt.Errorf("--infeed %s: the records up to %d hold more elements than --max-memory allows (%d)", f.dir, i, limit)
		}
		if i == maxRecords {
			return nil, fmt.Errorf("--infeed %s: more than %d records", f.dir, maxRecords)
		}
		recs = append(recs, r)
	}
	if len(recs) == 0 {
		return nil, fmt.Errorf("--infeed %s: no record 0 (0.npy, or 0.0.npy, 0.1.npy, ... for a tuple)", f.dir)
	}
	return recs, nil
}

// readRecord reads record i (nil, nil when it has no file) and gives it
// the infeed shape its arrays have.
func readRecord(dir string, i int, shapes []*hlo.Shape) (*eval.Value, error) {
	var arrs []*npy.Array
	var names []string
	one := filepath.Join(dir, fmt.Sprintf("%d.npy", i))
	if b, err := inputs.ReadFile(one, inputs.Arrays()); err == nil {
		a, err := npy.Read(b)
		if err != nil {
			return nil, fmt.Errorf("%s: %v", one, err)
		}
		arrs, names = append(arrs, a), append(names, one)
	} else if !errors.Is(err, fs.ErrNotExist) {
		return nil, err
	}
	for k := 0; len(names) == k; k++ { // a tuple record: i.0.npy, i.1.npy, ...
		p := filepath.Join(dir, fmt.Sprintf("%d.%d.npy", i, k))
		b, err := inputs.ReadFile(p, inputs.Arrays())
		if errors.Is(err, fs.ErrNotExist) {
			break
		}
		if err != nil {
			return nil, err
		}
		a, err := npy.Read(b)
		if err != nil {
			return nil, fmt.Errorf("%s: %v", p, err)
		}
		arrs, names = append(arrs, a), append(names, p)
	}
	if len(arrs) == 0 {
		return nil, nil
	}
	var tried []string
	for _, s := range shapes {
		if v := recordOf(s, arrs); v != nil {
			return v, nil
		}
		tried = append(tried, s.String())
	}
	var got []string
	for _, a := range arrs {
		got = append(got, fmt.Sprintf("%s%v", a.Descr, a.Shape))
	}
	return nil, fmt.Errorf("record %d (%s: %s) is not what the module's infeeds read (%s)", i, strings.Join(names, ", "), strings.Join(got, ", "), strings.Join(tried, " or "))
}

// recordOf gives the arrays shape s when they have its arrays' dims and
// kinds, depth first; nil otherwise.
func recordOf(s *hlo.Shape, arrs []*npy.Array) *eval.Value {
	var leaves []*hlo.Shape
	var walk func(s *hlo.Shape)
	walk = func(s *hlo.Shape) {
		if s.IsTuple {
			for _, t := range s.Tuple {
				walk(t)
			}
		} else if s.Elem != hlo.Token {
			leaves = append(leaves, s)
		}
	}
	walk(s)
	if len(leaves) != len(arrs) {
		return nil
	}
	var vals []*eval.Value
	for i, l := range leaves {
		a := arrs[i]
		if len(a.Shape) != len(l.Dims) || int64(len(a.Values)) != l.Elems() || elemKind(l.Elem) != descrKind(a.Descr) {
			return nil
		}
		for k, d := range l.Dims {
			if int64(a.Shape[k]) != d {
				return nil
			}
		}
		data := a.Values
		if d, ok := isa.ParseDType(l.Elem); ok && d.IsWide() {
			data = a.ValuesAs(d)
		}
		vals = append(vals, &eval.Value{Shape: l, Data: data})
	}
	return eval.Assemble(s, vals)
}

// writeOutfeed lists the outfeed records and writes them into dir as
// outfeed.N.npy (outfeed.N.K.npy for a tuple record's arrays).
func writeOutfeed(w io.Writer, recs []*eval.Value, dir string) error {
	if len(recs) == 0 {
		return nil
	}
	fmt.Fprintf(w, "outfeed: %d records", len(recs))
	if dir == "" {
		fmt.Fprintln(w, " (--out-dir writes them)")
		return nil
	}
	fmt.Fprintf(w, " -> %s\n", filepath.Join(dir, "outfeed.*.npy"))
	for i, r := range recs {
		leaves := eval.Leaves(r)
		for k, v := range leaves {
			name := fmt.Sprintf("outfeed.%d.npy", i)
			if r.Tuple != nil || len(leaves) > 1 {
				name = fmt.Sprintf("outfeed.%d.%d.npy", i, k)
			}
			if err := writeOutput("--out-dir", filepath.Join(dir, name), encodeValue(v)); err != nil {
				return err
			}
		}
	}
	return nil
}

// given reports whether the flags give infeed records.
func (f *feedFlags) given(cmd *cobra.Command) bool {
	return cmd.Flags().Changed("infeed") || cmd.Flags().Changed("random-infeed")
}
