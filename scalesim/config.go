// Package scalesim reads SCALE-Sim's configuration and topology files and
// reproduces its reports: a compatibility model that gives SCALE-Sim v3's
// numbers in its CALC bandwidth mode (docs/scalesim.md), so that a
// SCALE-Sim user can swap `python3 -m scalesim.scale` for `pulse scalesim`
// and keep their files and scripts.
package scalesim

import (
	"fmt"
	"slices"
	"strconv"
	"strings"
)

// Config is a SCALE-Sim .cfg file.
type Config struct {
	RunName                                string
	ArrayHeight, ArrayWidth                int64
	IfmapSRAMkB, FilterSRAMkB, OfmapSRAMkB int64
	IfmapOffset, FilterOffset, OfmapOffset int64
	Dataflow                               string // ws, os or is
	Bandwidths                             []int64
	MemoryBanks                            int64
	ReadRequestBuffer, WriteRequestBuffer  int64
	// UserBandwidth is InterfaceBandwidth USER (CALC when false).
	UserBandwidth bool
	// Notes say what the file holds that changes nothing here.
	Notes []string

	file  string
	lines map[string]int // "section.key" (key lower-case) or "[section]" -> line
}

// Error is a positioned problem in an input file.
type Error struct {
	File string
	Line int // 0: the file as a whole
	Msg  string
}

func (e *Error) Error() string {
	if e.Line > 0 {
		return fmt.Sprintf("%s:%d: %s", e.File, e.Line, e.Msg)
	}
	return fmt.Sprintf("%s: %s", e.File, e.Msg)
}

// ini is an INI file as Python's configparser reads it: sections, keys
// case-insensitive, "key = value" or "key : value", # and ; comments.
type ini struct {
	values map[string]map[string]string
	lines  map[string]int
	order  []string
}

func parseINI(file string, src []byte) (*ini, error) {
	f := &ini{values: map[string]map[string]string{}, lines: map[string]int{}}
	section := ""
	for i, raw := range strings.Split(string(src), "\n") {
		line := strings.TrimSpace(strings.TrimSuffix(raw, "\r"))
		n := i + 1
		if line == "" || line[0] == '#' || line[0] == ';' {
			continue
		}
		if line[0] == '[' {
			if !strings.HasSuffix(line, "]") {
				return nil, &Error{file, n, fmt.Sprintf("section header %q has no closing ]", line)}
			}
			section = strings.TrimSpace(line[1 : len(line)-1])
			if _, dup := f.values[section]; dup {
				return nil, &Error{file, n, fmt.Sprintf("section [%s] appears twice (first at line %d)", section, f.lines["["+section+"]"])}
			}
			f.values[section] = map[string]string{}
			f.lines["["+section+"]"] = n
			f.order = append(f.order, section)
			continue
		}
		if section == "" {
			return nil, &Error{file, n, fmt.Sprintf("%q is outside any [section]", line)}
		}
		k := strings.IndexAny(line, "=:")
		if k < 0 {
			return nil, &Error{file, n, fmt.Sprintf("%q is not a key = value line", line)}
		}
		key := strings.ToLower(strings.TrimSpace(line[:k]))
		if key == "" {
			return nil, &Error{file, n, fmt.Sprintf("%q has no key", line)}
		}
		if prev, dup := f.lines[section+"."+key]; dup {
			return nil, &Error{file, n, fmt.Sprintf("[%s] %s is set twice (first at line %d)", section, strings.TrimSpace(line[:k]), prev)}
		}
		f.values[section][key] = strings.TrimSpace(line[k+1:])
		f.lines[section+"."+key] = n
	}
	return f, nil
}

// MaxArraySide bounds ArrayHeight and ArrayWidth. The model scans the
// array's rows for each fold, as SCALE-Sim's demand matrices hold them, so
// its time grows with the square of the side: a 128^3 GEMM takes 2.5 s on
// 8192x8192 (67M PEs, beyond any array built or studied) and never ended
// on 10^8 rows.
const MaxArraySide = 1 << 13

// ParseConfig reads a SCALE-Sim v2/v3 configuration. Errors name the file
// and line (for a missing key, the line of its section).
func ParseConfig(file string, src []byte) (*Config, error) {
	f, err := parseINI(file, src)
	if err != nil {
		return nil, err
	}
	c := &Config{file: file, lines: f.lines}
	get := func(section, key string) (string, int, error) {
		vals, ok := f.values[section]
		if !ok {
			return "", 0, &Error{file, 0, fmt.Sprintf("no [%s] section (it needs %s)", section, key)}
		}
		v, ok := vals[strings.ToLower(key)]
		if !ok {
			return "", 0, &Error{file, f.lines["["+section+"]"], fmt.Sprintf("[%s] has no %s", section, key)}
		}
		return v, f.lines[section+"."+strings.ToLower(key)], nil
	}
	num := func(section, key string, least int64) (int64, error) {
		v, n, err := get(section, key)
		if err != nil {
			return 0, err
		}
		x, perr := strconv.ParseInt(v, 10, 64)
		if perr != nil {
			return 0, &Error{file, n, fmt.Sprintf("%s %q is not a whole number", key, v)}
		}
		if x < least {
			return 0, &Error{file, n, fmt.Sprintf("%s is %d; it must be at least %d", key, x, least)}
		}
		return x, nil
	}
	var errs []error
	keep := func(err error) {
		if err != nil {
			errs = append(errs, err)
		}
	}
	var n int
	c.RunName, _, err = get("general", "run_name")
	keep(err)
	// "." and ".." are names without slashes that still leave the output
	// directory: the reports would overwrite the parent's files.
	if err == nil && (c.RunName == "" || c.RunName == "." || c.RunName == ".." || strings.ContainsAny(c.RunName, `/\`+"\x00")) {
		keep(&Error{file, f.lines["general.run_name"], fmt.Sprintf("run_name %q must be a non-empty name without slashes (it names the output directory)", c.RunName)})
	}
	const arch = "architecture_presets"
	for _, k := range []struct {
		key   string
		dst   *int64
		least int64
	}{
		{"ArrayHeight", &c.ArrayHeight, 1}, {"ArrayWidth", &c.ArrayWidth, 1},
		{"IfmapSramSzkB", &c.IfmapSRAMkB, 1}, {"FilterSramSzkB", &c.FilterSRAMkB, 1}, {"OfmapSramSzkB", &c.OfmapSRAMkB, 1},
		{"IfmapOffset", &c.IfmapOffset, 0}, {"FilterOffset", &c.FilterOffset, 0}, {"OfmapOffset", &c.OfmapOffset, 0},
		{"ReadRequestBuffer", &c.ReadRequestBuffer, 1}, {"WriteRequestBuffer", &c.WriteRequestBuffer, 1},
	} {
		*k.dst, err = num(arch, k.key, k.least)
		keep(err)
	}
	// See MaxArraySide.
	for _, k := range []struct {
		key string
		v   int64
	}{{"ArrayHeight", c.ArrayHeight}, {"ArrayWidth", c.ArrayWidth}} {
		if k.v > MaxArraySide {
			keep(&Error{file, f.lines[arch+"."+strings.ToLower(k.key)], fmt.Sprintf("%s is %d; it must be at most %d", k.key, k.v, MaxArraySide)})
		}
	}
	if _, ok := f.values[arch]["memorybanks"]; ok {
		c.MemoryBanks, err = num(arch, "MemoryBanks", 1)
		keep(err)
	}
	var df string
	df, n, err = get(arch, "Dataflow")
	keep(err)
	if err == nil {
		c.Dataflow = strings.ToLower(df)
		if !slices.Contains([]string{"ws", "os", "is"}, c.Dataflow) {
			keep(&Error{file, n, fmt.Sprintf("Dataflow %q: must be ws, os or is", df)})
		}
	}
	var mode string
	mode, n, err = get("run_presets", "InterfaceBandwidth")
	keep(err)
	switch {
	case err != nil:
	case mode == "CALC":
	case mode == "USER":
		c.UserBandwidth = true
	default:
		keep(&Error{file, n, fmt.Sprintf("InterfaceBandwidth %q: must be CALC or USER", mode)})
	}
	if bw, n, err := get(arch, "Bandwidth"); err == nil {
		for _, s := range strings.Split(bw, ",") {
			x, perr := strconv.ParseInt(strings.TrimSpace(s), 10, 64)
			if perr != nil || x < 1 {
				keep(&Error{file, n, fmt.Sprintf("Bandwidth %q: a comma-separated list of whole numbers of at least 1", bw)})
				break
			}
			c.Bandwidths = append(c.Bandwidths, x)
		}
	} else if c.UserBandwidth {
		keep(err)
	}
	if v, ok := f.values["run_presets"]["useramulatortrace"]; ok && !strings.EqualFold(v, "false") {
		keep(&Error{file, f.lines["run_presets.useramulatortrace"], fmt.Sprintf("UseRamulatorTrace %s: Ramulator traces are not supported (set it to False)", v)})
	}
	// Sections SCALE-Sim v3 reads that the compatibility model does not
	// model: accepted while they leave the results unchanged.
	if v := f.values["sparsity"]["sparsitysupport"]; strings.EqualFold(v, "true") {
		keep(&Error{file, f.lines["sparsity.sparsitysupport"], "SparsitySupport true: sparse layers are not modelled (set it to false)"})
	}
	for _, k := range []string{"ifmapcustomlayout", "filtercustomlayout"} {
		if v := f.values["layout"][k]; strings.EqualFold(v, "true") {
			keep(&Error{file, f.lines["layout."+k], "custom SRAM layouts are not modelled (set IfmapCustomLayout and FilterCustomLayout to false)"})
		}
	}
	for _, s := range f.order {
		switch s {
		case "general", arch, "run_presets":
		case "layout", "sparsity", "network_presets":
			c.Notes = append(c.Notes, fmt.Sprintf("[%s] (line %d) read; it changes nothing in these results", s, f.lines["["+s+"]"]))
		default:
			c.Notes = append(c.Notes, fmt.Sprintf("[%s] (line %d) is not a SCALE-Sim section; ignored", s, f.lines["["+s+"]"]))
		}
	}
	if c.MemoryBanks > 1 {
		c.Notes = append(c.Notes, fmt.Sprintf("MemoryBanks %d changes nothing in CALC mode", c.MemoryBanks))
	}
	if len(errs) > 0 {
		return nil, joinErrors(errs)
	}
	return c, nil
}

// ErrorList is several positioned errors, in file order.
type ErrorList []error

func (l ErrorList) Error() string {
	var b strings.Builder
	for i, e := range l {
		if i > 0 {
			b.WriteString("\n")
		}
		b.WriteString(e.Error())
	}
	return b.String()
}

func joinErrors(errs []error) error {
	if len(errs) == 1 {
		return errs[0]
	}
	slices.SortStableFunc(errs, func(a, b error) int {
		ea, _ := a.(*Error)
		eb, _ := b.(*Error)
		if ea == nil || eb == nil {
			return 0
		}
		return ea.Line - eb.Line
	})
	return ErrorList(errs)
}
