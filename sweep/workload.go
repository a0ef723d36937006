package sweep

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"path/filepath"
	"strings"

	pulse "github.com/pulse-sim/pulse"
	"github.com/pulse-sim/pulse/exe"
	"github.com/pulse-sim/pulse/hlo"
	"github.com/pulse-sim/pulse/hlo/stablehlo"
	"github.com/pulse-sim/pulse/hlo/verify"
	"github.com/pulse-sim/pulse/internal/inputs"
	"github.com/pulse-sim/pulse/scalesim"
)

// Workload is one program a sweep runs at every point.
type Workload struct {
	// Name is what results call it: the path as given, or
	// "path:LAYER" for a layer of a SCALE-Sim topology.
	Name string
	Kind string // hlo, asm, exe, layer
	// Hash fingerprints the workload's content: an edited file is a new
	// workload, never resumed from results of the old one.
	Hash string

	module *hlo.Module  // hlo and layer
	prog   *exe.Program // asm and exe
	file   string       // the file name compile errors give
}

// LoadWorkloads reads every workload, so that a missing file or a parse
// error stops the sweep before any point runs.
func LoadWorkloads(paths []string) ([]*Workload, error) {
	if len(paths) == 0 {
		return nil, fmt.Errorf("no workloads: give HLO modules, kernels (.s, .pulse) or SCALE-Sim topologies (.csv)")
	}
	var out []*Workload
	seen := map[string]bool{}
	for _, p := range paths {
		b, err := inputs.ReadFile(p, inputs.Sources)
		if err != nil {
			return nil, fmt.Errorf("workload: %v", err)
		}
		ws, err := loadWorkload(p, b)
		if err != nil {
			return nil, err
		}
		for _, w := range ws {
			if seen[w.Name] {
				return nil, fmt.Errorf("workload %s is given twice", w.Name)
			}
			seen[w.Name] = true
		}
		out = append(out, ws...)
	}
	return out, nil
}

func contentHash(parts ...[]byte) string {
	h := sha256.New()
	for _, p := range parts {
		fmt.Fprintf(h, "%d:", len(p))
		h.Write(p)
	}
	return hex.EncodeToString(h.Sum(nil))[:16]
}

func loadWorkload(path string, b []byte) ([]*Workload, error) {
	switch strings.ToLower(filepath.Ext(path)) {
	case ".hlo", ".txt", ".mlir":
		m, err := stablehlo.ParseFile(path, b)
		if err != nil {
			return nil, err
		}
		if err := verify.Verify(path, m); err != nil {
			return nil, err
		}
		return []*Workload{{Name: path, Kind: "hlo", Hash: contentHash(b), module: m, file: path}}, nil
	case ".s", ".pulse":
		prog, err := pulse.ParseProgram(path, b)
		if err != nil {
			return nil, err
		}
		kind := "asm"
		if strings.HasSuffix(path, ".pulse") {
			kind = "exe"
		}
		return []*Workload{{Name: path, Kind: kind, Hash: contentHash(b), prog: prog, file: path}}, nil
	case ".csv":
		layers, err := scalesim.ParseTopology(path, b, isGEMMTopology(b))
		if err != nil {
			return nil, err
		}
		var out []*Workload
		for i := range layers {
			text := scalesim.LayerHLO(&layers[i])
			file := fmt.Sprintf("%s:%s", path, layers[i].Name)
			m, err := hlo.Parse(file, text)
			if err != nil {
				return nil, err
			}
			if err := verify.Verify(file, m); err != nil {
				return nil, err
			}
			out = append(out, &Workload{Name: file, Kind: "layer", Hash: contentHash([]byte(text)), module: m, file: file})
		}
		return out, nil
	}
	return nil, fmt.Errorf("workload %s: not a known kind (.hlo, .s, .pulse, or a SCALE-Sim topology .csv)", path)
}

// isGEMMTopology tells a GEMM topology (`Layer, M, N, K,`) from a conv one
// by its header.
func isGEMMTopology(b []byte) bool {
	for _, line := range strings.Split(string(b), "\n") {
		if strings.TrimSpace(line) == "" {
			continue
		}
		var n int
		for _, f := range strings.Split(line, ",") {
			if strings.TrimSpace(f) != "" {
				n++
			}
		}
		return n == 4
	}
	return false
}
