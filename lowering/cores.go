package lowering

import (
	"bytes"
	"fmt"
	"strings"

	"github.com/pulse-sim/pulse/hlo"
	"github.com/pulse-sim/pulse/isa"
)

// Kernels on a chip of several cores.
//
// Every core of a multi-core chip (config.Chip.Cores) runs the one
// program; each finds its number at scalar-memory byte isa.CoreWord. A
// kernel whose emitter splits it (a dot, by rows: dot.go) is a block of
// code per core, reached by branching on that number; any other kernel
// runs on core 0 while the others go straight to its end, where the cores
// meet (core.CoreSync), so that no core reads an array before the core
// that writes it is done:
//
//	        ld      r1, [r0+CoreWord]   ; a kernel on core 0 alone
//	        bne     r1, r0, kN_sync
//	        ...                         ; the kernel
//	kN_sync:
//	        barrier                     ; this core's units are done
//	        li      r1, CoreSyncID
//	        st      r1, [r0+LinkWord]
//	        signal  s31, 1              ; ring the core barrier
//	        wait    s30, 1              ; until every core has
//
// The code around kernels (while loops, conditionals) runs on every core,
// each reading loop conditions from HBM into its own scalar memory after
// the barrier of the kernel that computed them. Compiled.OneCore lists the
// kernels that ran on core 0 alone, so that a report can say so.

// onCores lowers one instruction with emit and, on a chip of several cores,
// makes the kernel it emitted a kernel of the chip: split across the cores
// by its emitter (c.coreSplit) or run on core 0, followed by the barrier.
// Kernels emitted by instructions inside it (a while's body, the pieces of
// a split fusion) have been made so already, each by its own onCores.
func (c *compiler) onCores(emit func() error) error {
	if c.chip.NumCores() <= 1 || c.out.discard {
		return emit()
	}
	mark, nk := c.out.Len(), len(c.res.Kernels)
	c.coreSplit = ""
	if err := emit(); err != nil {
		return err
	}
	if len(c.res.Kernels) == nk {
		return nil // no kernel: a view, a tuple, a constant
	}
	synced := 0
	for i := nk; i < len(c.res.Kernels); i++ {
		if c.synced[i] {
			synced++
		}
	}
	switch {
	case synced == len(c.res.Kernels)-nk:
		return nil // a while, a conditional, a split fusion: each kernel made a chip's already
	case synced > 0:
		return fmt.Errorf("internal error: %s emitted kernels that are not synchronized across the cores", c.res.Kernels[nk].Name)
	}
	for i := nk; i < len(c.res.Kernels); i++ {
		c.synced[i] = true
	}
	k := c.res.Kernels[nk]
	code := bytes.Clone(c.out.Bytes()[mark:])
	c.out.Truncate(mark)
	c.nlabel++
	end := fmt.Sprintf("k%d_sync", c.nlabel)
	// The guard goes after the kernel's first .origin, so that its cycles
	// are the kernel's.
	at := 0
	if i := bytes.Index(code, []byte(".origin ")); i >= 0 {
		if j := bytes.IndexByte(code[i:], '\n'); j >= 0 {
			at = i + j + 1
		}
	}
	c.out.Write(code[:at])
	if c.coreSplit == "" {
		fmt.Fprintf(&c.out, "        ld      r1, [r0+%d]              ; core 0 alone runs %s\n", isa.CoreWord, k.Name)
		fmt.Fprintf(&c.out, "        bne     r1, r0, %s\n", end)
		c.res.OneCore = append(c.res.OneCore, k.Name)
	} else {
		c.res.CoreSplit = append(c.res.CoreSplit, CoreSplit{Kernel: k.Name, How: c.coreSplit})
	}
	c.out.Write(code[at:])
	fmt.Fprintf(&c.out, "%s:\n", end)
	c.coreBarrier()
	return nil
}

// coreBarrier emits the meeting of the cores.
func (c *compiler) coreBarrier() {
	fmt.Fprintf(&c.out, "        barrier\n")
	fmt.Fprintf(&c.out, "        li      r1, %d\n", isa.CoreSyncID)
	fmt.Fprintf(&c.out, "        st      r1, [r0+%d]\n", isa.LinkWord)
	fmt.Fprintf(&c.out, "        signal  s%d, 1\n", isa.SemLink)
	fmt.Fprintf(&c.out, "        wait    s%d, 1\n", isa.SemLinkDone)
}

// CoreSplit is a kernel split across the cores of a chip, and how.
type CoreSplit struct {
	Kernel string
	How    string // "rows 0-511 | 512-1023"
}

// coreShares divides n items (rows) among the cores in shares of whole
// multiples of unit where it can: the first cores take one unit more when
// the units do not divide evenly. A share may be empty.
func coreShares(n, unit int64, cores int) [][2]int64 {
	units := (n + unit - 1) / unit
	var out [][2]int64
	lo := int64(0)
	for k := range int64(cores) {
		u := units / int64(cores)
		if k < units%int64(cores) {
			u++
		}
		hi := min(n, lo+u*unit)
		out = append(out, [2]int64{lo, hi})
		lo = hi
	}
	return out
}

// dotOnCores lowers a dot kernel with lower, which emits the code of one
// share of the output (rows [r0, r1), columns [c0, c1) of batches [b0,
// b1)): whole on a chip of one core; on several, a share per core. A
// batched dot shares out its batches (but a chunked one, of one-tile
// matrices, runs on core 0 whole). Otherwise every core reads the whole
// of the operand along the dimension it does not split, so the split is of
// the rows when the rhs is the smaller operand (N <= M) and of the columns
// otherwise, in whole sublane groups of rows (8) or whole MXU column
// tiles; when that dimension has fewer such units than there are cores,
// the other; when neither, the kernel runs on core 0.
func (c *compiler) dotOnCores(in *hlo.Instruction, B, M, N int64, chunked bool, lower func(r0, r1, c0, c1, b0, b1 int64) error) error {
	n := c.chip.NumCores()
	if n <= 1 {
		return lower(0, M, 0, N, 0, B)
	}
	if B > 1 {
		if B < int64(n) || chunked {
			return lower(0, M, 0, N, 0, B)
		}
		return c.sharesOnCores(in, "batches", B, 1, func(lo, hi int64) error { return lower(0, M, 0, N, lo, hi) })
	}
	rowUnit, colUnit := int64(8), int64(c.chip.MXU.Cols)
	byRows := N <= M
	if byRows && M < int64(n)*rowUnit {
		byRows = false
	}
	if !byRows && N < int64(n)*colUnit {
		if M < int64(n)*rowUnit {
			return lower(0, M, 0, N, 0, 1)
		}
		byRows = true
	}
	if byRows {
		return c.sharesOnCores(in, "rows", M, rowUnit, func(lo, hi int64) error { return lower(lo, hi, 0, N, 0, 1) })
	}
	return c.sharesOnCores(in, "columns", N, colUnit, func(lo, hi int64) error { return lower(0, M, lo, hi, 0, 1) })
}

// sharesOnCores emits a kernel whose n items (rows or columns: what) are
// shared out among the cores in whole units (coreShares): a branch on the
// core's number to a block per core that lower emits for items [lo, hi),
// nothing for an empty share.
func (c *compiler) sharesOnCores(in *hlo.Instruction, what string, n, unit int64, lower func(lo, hi int64) error) error {
	cores := c.chip.NumCores()
	shares := coreShares(n, unit, cores)
	c.nlabel++
	base := fmt.Sprintf("k%d", c.nlabel)
	w := &c.out
	fmt.Fprintf(w, "\n; ---- %s split across %d cores by %s\n.origin %q\n", in.Name, cores, what, in.Name)
	c.loc(in)
	fmt.Fprintf(w, "        ld      r1, [r0+%d]\n", isa.CoreWord)
	for k := 1; k < cores; k++ {
		fmt.Fprintf(w, "        li      r2, %d\n        beq     r1, r2, %s_core%d\n", k, base, k)
	}
	var desc []string
	for k, sh := range shares {
		if k > 0 {
			fmt.Fprintf(w, "%s_core%d:\n", base, k)
		}
		desc = append(desc, fmt.Sprintf("%d-%d", sh[0], sh[1]-1))
		if sh[1] > sh[0] {
			if err := lower(sh[0], sh[1]); err != nil {
				return err
			}
		} else {
			desc[k] = "none"
		}
		if k < cores-1 {
			c.loc(in)
			fmt.Fprintf(w, "        jmp     %s_done\n", base)
		}
	}
	fmt.Fprintf(w, "%s_done:\n", base)
	c.coreSplit = what + " " + strings.Join(desc, " | ")
	return nil
}

// coreState is where the records of cores.go stood at a point of the
// lowering, so that a kernel tried and given up (a fusion falling back to
// several kernels) leaves none of its own.
type coreState struct{ kernels, split, one int }

func (c *compiler) coreMark() coreState {
	return coreState{len(c.res.Kernels), len(c.res.CoreSplit), len(c.res.OneCore)}
}

func (c *compiler) coreReset(s coreState) {
	for i := range c.synced {
		if i >= s.kernels {
			delete(c.synced, i)
		}
	}
	c.res.CoreSplit, c.res.OneCore = c.res.CoreSplit[:s.split], c.res.OneCore[:s.one]
}
