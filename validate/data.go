package validate

import (
	"embed"
	"io/fs"
	"path"
	"sort"
)

// The published measurements that ship with Pulse (copied from
// ../shared/reference/silicon; sources in its README and in
// docs/validation.md).
//
//go:embed data/*.csv
var data embed.FS

// Builtin reads the tables that ship with Pulse, in name order.
func Builtin() ([]Measurement, error) {
	names, err := fs.Glob(data, "data/*.csv")
	if err != nil {
		return nil, err
	}
	sort.Strings(names)
	var out []Measurement
	for _, n := range names {
		f, err := data.Open(n)
		if err != nil {
			return nil, err
		}
		ms, err := ReadCSV(path.Base(n), f)
		f.Close()
		if err != nil {
			return nil, err
		}
		out = append(out, ms...)
	}
	return out, nil
}
