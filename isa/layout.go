package isa

import (
	"fmt"
	"strconv"
	"strings"
)

// Space is a memory space. The numbering is part of the binary encoding.
type Space uint8

const (
	SpaceNone Space = iota
	HBM             // off-chip DRAM
	SRAM            // on-chip scratchpad (VMEM / SBUF)
	ACC             // accumulator memory (PSUM), written by the MXU
	SMEM            // scalar memory, read and written by ld/st
	HOST            // the host's memory behind the host link, reached by DMA only
	VREG            // the vector unit's register file, read and written by vector and cross-lane instructions only
	numSpaces
)

// NumSpaces bounds the spaces' numbers: arrays indexed by Space have this
// length.
const NumSpaces = int(numSpaces)

var spaceNames = [...]string{"none", "hbm", "sram", "acc", "smem", "host", "vreg"}

// Spaces lists every addressable space in encoding order.
func Spaces() []Space { return []Space{HBM, SRAM, ACC, SMEM, HOST, VREG} }

func (s Space) String() string {
	if int(s) < len(spaceNames) {
		return spaceNames[s]
	}
	return fmt.Sprintf("space(%d)", uint8(s))
}

// Valid reports whether s names an addressable space.
func (s Space) Valid() bool { return s > SpaceNone && s < numSpaces }

// ParseSpace parses a space name.
func ParseSpace(s string) (Space, bool) {
	for i, n := range spaceNames {
		if i > 0 && n == s {
			return Space(i), true
		}
	}
	return SpaceNone, false
}

// MaxRank is the largest tile rank.
const MaxRank = 4

// Layout is the static part of a tile operand: where it lives, its element type,
// its shape and its strides in elements (0 broadcasts, negative walks backwards).
// Layouts are kept in the executable's layout table; instructions refer to them
// by index, so that a 256-bit instruction can carry three 4-D tiles.
type Layout struct {
	Space   Space
	DType   DType
	Rank    uint8
	Shape   [MaxRank]uint32
	Strides [MaxRank]int32
}

// Dims returns the shape as a slice of length Rank.
func (l *Layout) Dims() []uint32 { return l.Shape[:l.Rank] }

// Elems is the number of elements of the tile.
func (l *Layout) Elems() int64 {
	n := int64(1)
	for _, d := range l.Dims() {
		n *= int64(d)
	}
	return n
}

// RowMajor reports whether the strides are the contiguous row-major ones.
func (l *Layout) RowMajor() bool {
	s := int64(1)
	for i := int(l.Rank) - 1; i >= 0; i-- {
		if int64(l.Strides[i]) != s {
			return false
		}
		s *= int64(l.Shape[i])
	}
	return true
}

// SetRowMajor fills Strides with the contiguous row-major strides of Shape.
func (l *Layout) SetRowMajor() {
	s := int64(1)
	for i := int(l.Rank) - 1; i >= 0; i-- {
		l.Strides[i] = int32(s)
		s *= int64(l.Shape[i])
	}
}

// Extent returns the lowest and one-past-highest byte offsets, relative to the
// base address, that the tile touches. An empty tile touches nothing (0, 0).
func (l *Layout) Extent() (lo, hi int64) {
	if l.Elems() == 0 {
		return 0, 0
	}
	for i := 0; i < int(l.Rank); i++ {
		span := int64(l.Shape[i]-1) * int64(l.Strides[i])
		if span < 0 {
			lo += span
		} else {
			hi += span
		}
	}
	sz := int64(l.DType.Size())
	return lo * sz, (hi + 1) * sz
}

// Validate checks the layout's fields.
func (l *Layout) Validate() error {
	if !l.Space.Valid() {
		return fmt.Errorf("invalid memory space %d", l.Space)
	}
	if !l.DType.Valid() {
		return fmt.Errorf("invalid dtype %d", l.DType)
	}
	if l.Rank < 1 || l.Rank > MaxRank {
		return fmt.Errorf("rank %d out of range 1..%d", l.Rank, MaxRank)
	}
	for i := int(l.Rank); i < MaxRank; i++ {
		if l.Shape[i] != 0 || l.Strides[i] != 0 {
			return fmt.Errorf("dimension %d beyond rank %d is not zero", i, l.Rank)
		}
	}
	for i := 0; i < int(l.Rank); i++ {
		if l.Shape[i] == 0 {
			return fmt.Errorf("dimension %d has size 0", i)
		}
		if l.Shape[i] > MaxDim {
			return fmt.Errorf("dimension %d has size %d, above the limit %d", i, l.Shape[i], MaxDim)
		}
	}
	if l.Elems() > MaxTileElems {
		return fmt.Errorf("tile has %d elements, above the limit %d", l.Elems(), MaxTileElems)
	}
	return nil
}

// Limits on a single tile, so that a tile's byte extent always fits an int64
// and a functional run of one instruction stays bounded.
const (
	MaxDim       = 1 << 24
	MaxTileElems = 1 << 30
)

// String prints the layout in assembler syntax without the address:
// "sram:bf16[128,64]" or, when the strides are not row-major,
// "hbm:f32[128,64]{4096,1}".
func (l *Layout) String() string {
	var b strings.Builder
	b.WriteString(l.DType.String())
	b.WriteByte('[')
	for i, d := range l.Dims() {
		if i > 0 {
			b.WriteByte(',')
		}
		b.WriteString(strconv.FormatUint(uint64(d), 10))
	}
	b.WriteByte(']')
	if !l.RowMajor() {
		b.WriteByte('{')
		for i := 0; i < int(l.Rank); i++ {
			if i > 0 {
				b.WriteByte(',')
			}
			b.WriteString(strconv.FormatInt(int64(l.Strides[i]), 10))
		}
		b.WriteByte('}')
	}
	return b.String()
}
