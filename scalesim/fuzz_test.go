package scalesim

import (
	"os"
	"strings"
	"testing"
)

// The readers never panic, and every error they give names the file.
func FuzzParse(f *testing.F) {
	cfg, _ := os.ReadFile("testdata/scale.cfg")
	topo, _ := os.ReadFile("testdata/alexnet_part.csv")
	f.Add(cfg, topo, false)
	f.Add([]byte("[general]\nrun_name = x\n"), []byte("Layer, M, N, K,\nG, 1, 2, 3,\n"), true)
	f.Add([]byte("[a\nk"), []byte("h\nDP, 3, 3, 3, 3, 2, 1, 1, 1,\n"), false)
	f.Fuzz(func(t *testing.T, cfgText, topoText []byte, gemm bool) {
		c, err := ParseConfig("f.cfg", cfgText)
		if err != nil && !strings.Contains(err.Error(), "f.cfg") {
			t.Fatalf("config error without the file: %v", err)
		}
		layers, err := ParseTopology("f.csv", topoText, gemm)
		if err != nil {
			if !strings.Contains(err.Error(), "f.csv") {
				t.Fatalf("topology error without the file: %v", err)
			}
			return
		}
		if c == nil || c.UserBandwidth {
			return
		}
		// Small layers only: the model itself is exercised elsewhere.
		for i := range layers {
			l := &layers[i]
			if l.M()*l.N()*l.K() > 1<<16 || c.ArrayHeight*c.ArrayWidth > 1<<12 || c.ArrayHeight > 256 || c.ArrayWidth > 256 ||
				c.IfmapSRAMkB > 64 || c.FilterSRAMkB > 64 || c.OfmapSRAMkB > 64 {
				return
			}
		}
		if _, err := Run(c, layers, Options{DRAMReads: true}, nil); err != nil {
			t.Fatalf("run: %v", err)
		}
	})
}
