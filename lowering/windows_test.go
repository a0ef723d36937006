package lowering_test

import (
	"fmt"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

// TestSharedWindowLoads: a depthwise convolution on the flattened grid
// reads its nine kernel positions as the padded input shifted by whole
// rows, and its tap-sum kernel loads those rows once per tile for all
// nine (windows.go); in NCHW they are shifted within the rows and the
// kernel loads their hull once (windowhull.go): values as the
// evaluator's, no race, and one load of the padded input in the kernel
// where there were nine.
func TestSharedWindowLoads(t *testing.T) {
	cases := []struct {
		name, src string
		loads     int // loads of the padded input in the tap sum's kernel
	}{
		{"nhwc depthwise 3x3", convSrc("f32[2,16,16,32]", "f32[3,3,1,32]", "f32[2,16,16,32]", "window={size=3x3 pad=1_1x1_1}, dim_labels=b01f_01io->b01f, feature_group_count=32"), 1},
		{"bf16 depthwise 3x3", convSrc("bf16[2,12,12,48]", "bf16[3,3,1,48]", "bf16[2,12,12,48]", "window={size=3x3 pad=1_1x1_1}, dim_labels=b01f_01io->b01f, feature_group_count=48"), 1},
		{"dilated depthwise 1-d", convSrc("f32[2,64,16]", "f32[3,1,16]", "f32[2,64,16]", "window={size=3 pad=4_0 rhs_dilate=2}, dim_labels=b0f_0io->b0f, feature_group_count=16"), 1},
		// In NCHW the kernel positions are shifts within each image: one
		// load of the tile's padded images (their hull: windowhull.go).
		{"nchw depthwise 3x3", convSrc("f32[2,24,14,14]", "f32[24,1,3,3]", "f32[2,24,14,14]", "window={size=3x3 pad=1_1x1_1}, dim_labels=bf01_oi01->bf01, feature_group_count=24"), 1},
		{"nchw depthwise 3x3 stride 2", convSrc("f32[2,24,14,14]", "f32[24,1,3,3]", "f32[2,24,7,7]", "window={size=3x3 stride=2x2 pad=1_1x1_1}, dim_labels=bf01_oi01->bf01, feature_group_count=24"), 1},
		{"nchw bf16 depthwise 5x5", convSrc("bf16[2,16,12,12]", "bf16[16,1,5,5]", "bf16[2,16,12,12]", "window={size=5x5 pad=2_2x2_2}, dim_labels=bf01_oi01->bf01, feature_group_count=16"), 1},
	}
	// A load of the padded input: a DMA from its tensor (c.pad..., in HBM
	// or, small, in VMEM) into SRAM.
	load := regexp.MustCompile(`dma +sram\[[^\]]*\]:[a-z0-9]+\[[^\]]*\], (?:hbm\[[^\]]*t|sram\[[^\]]*v)_c_pad`)
	for _, c := range cases {
		for _, chip := range chips {
			t.Run(c.name+"/"+chip, func(t *testing.T) {
				x, _ := compileRunChecked(t, chip, nil, c.src)
				// The tap sum: the kernel that loads the padded input.
				var kernels []string
				for _, k := range strings.Split(x.Compiled.Asm, "; ---- kernel ")[1:] {
					if load.MatchString(k) {
						kernels = append(kernels, k)
					}
				}
				require.Len(t, kernels, 1, "one kernel reads the padded input")
				body := kernels[0]
				const own = "        wait    s0, "
				if i := strings.Index(body, own); i >= 0 {
					// A walk that loads ahead (streamchunks.go): one tile,
					// from its wait for its own loads to the next tile's,
					// issues the loads of a tile to come; in a walk too
					// short for that, the loads before the first wait are
					// the first tiles' (one or two).
					prologue, rest := body[:i], body[i+1:]
					if j := strings.Index(rest, own); j >= 0 {
						rest = rest[:j]
					}
					body = rest
					if !load.MatchString(rest) {
						m := regexp.MustCompile(`(\d+) rows in tiles of (\d+)`).FindStringSubmatch(kernels[0])
						require.NotNil(t, m)
						rows, tile := atoi(t, m[1]), atoi(t, m[2])
						tiles := min((rows+tile-1)/tile, 2)
						require.Equal(t, c.loads*tiles, len(load.FindAllString(prologue, -1)), "loads of the padded input ahead of the walk")
						return
					}
				} else {
					if i := strings.Index(body, "_tile0:"); i >= 0 {
						body = body[i:] // one tile's loads (a loop's body)
					}
					if i := strings.Index(body, "loop    "); i >= 0 {
						body = body[:i]
					}
				}
				require.Equal(t, c.loads, len(load.FindAllString(body, -1)), "loads of the padded input a tile")
			})
		}
	}
}

// TestBroadcastOfSlicedParameter: a loop fusion reads a broadcast of one
// slice of a parameter (a kernel position's weights, contiguous or
// strided) in place, as one kernel: before, the slice was a kernel of its
// own writing a temporary (nine of about 280 cycles a depthwise
// convolution).
func TestBroadcastOfSlicedParameter(t *testing.T) {
	src := func(w, slice, sliced string) string {
		return fmt.Sprintf(`ENTRY e {
  x = f32[64,96] parameter(0)
  w = %s parameter(1)
  s = %s slice(w), slice=%s
  r = f32[96] reshape(s)
  b = f32[64,96] broadcast(r), dimensions={1}
  ROOT m = f32[64,96] multiply(x, b)
}`, w, sliced, slice)
	}
	cases := map[string]string{
		"contiguous (hwio)": src("f32[3,3,1,96]", "{[1:2], [2:3], [0:1], [0:96]}", "f32[1,1,1,96]"),
		"strided (oihw)":    src("f32[96,1,3,3]", "{[0:96], [0:1], [1:2], [2:3]}", "f32[96,1,1,1]"),
	}
	for name, s := range cases {
		for _, chip := range chips {
			t.Run(name+"/"+chip, func(t *testing.T) {
				x, _ := compileRunChecked(t, chip, nil, s)
				require.Len(t, x.Compiled.Kernels, 1, "one loop kernel")
			})
		}
	}
}

func atoi(t *testing.T, s string) int {
	t.Helper()
	n, err := strconv.Atoi(s)
	require.NoError(t, err)
	return n
}
