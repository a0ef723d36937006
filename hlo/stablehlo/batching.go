package stablehlo

import (
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/pulse-sim/pulse/hlo"
)

// Batching dimensions of gather and scatter (operand_batching_dims /
// input_batching_dims with start_indices_batching_dims /
// scatter_indices_batching_dims, which jax.vmap of an indexing op emits)
// have no HLO-text counterpart in Pulse's HLO. They are rewritten as XLA's
// BatchedGatherScatterNormalizer does: each batching dimension of the
// indices contributes one more index component, an iota along that
// dimension, mapped to the operand's batching dimension, which becomes a
// collapsed (gather) or inserted (scatter) window dimension. The result is
// the same op, element for element.

// unbatched is an indexing op's dimension numbers after the rewrite.
type unbatched struct {
	indices  string  // the indices operand (an HLO name)
	ivd      int64   // index_vector_dim
	indexMap []int64 // start_index_map / scatter_dims_to_operand_dims
	windowed []int64 // collapsed_slice_dims / inserted_window_dims, sorted
}

// unbatch emits the extended indices for res and returns the rewritten
// dimension numbers; with no batching dims it changes nothing.
func (b *builder) unbatch(res, indices, idxShape string, ivd int64, indexMap, windowed, opBatch, idxBatch []int64, p hlo.Pos) (unbatched, error) {
	u := unbatched{indices: indices, ivd: ivd, indexMap: indexMap, windowed: windowed}
	if len(opBatch) == 0 {
		return u, nil
	}
	if len(opBatch) != len(idxBatch) {
		return u, fmt.Errorf("%d operand batching dims but %d indices batching dims", len(opBatch), len(idxBatch))
	}
	elem, dims := elemOf(idxShape), dimsOf(idxShape)
	if ivd < 0 || ivd > int64(len(dims)) {
		return u, fmt.Errorf("index_vector_dim %d is out of range for indices %s", ivd, idxShape)
	}
	shape := func(d []int64) string {
		s := make([]string, len(d))
		for i, x := range d {
			s[i] = strconv.FormatInt(x, 10)
		}
		return elem + "[" + strings.Join(s, ",") + "]"
	}
	if ivd == int64(len(dims)) { // implicit trailing index vector of one
		dims = append(dims, 1)
		b.emitLine(fmt.Sprintf("  %s.bidx = %s reshape(%s)", res, shape(dims), indices), p)
		indices = res + ".bidx"
	}
	parts := []string{indices}
	one := slices.Clone(dims)
	one[ivd] = 1
	for k, d := range idxBatch {
		if d < 0 || d >= int64(len(dims)) || d == ivd {
			return u, fmt.Errorf("indices batching dim %d is out of range or the index vector dim", d)
		}
		name := fmt.Sprintf("%s.biota%d", res, k)
		b.emitLine(fmt.Sprintf("  %s = %s iota(), iota_dimension=%d", name, shape(one), d), p)
		parts = append(parts, name)
	}
	wide := slices.Clone(dims)
	wide[ivd] += int64(len(idxBatch))
	b.emitLine(fmt.Sprintf("  %s.bcat = %s concatenate(%s), dimensions={%d}", res, shape(wide), strings.Join(parts, ", "), ivd), p)
	u.indices = res + ".bcat"
	u.indexMap = append(slices.Clone(indexMap), opBatch...)
	u.windowed = append(slices.Clone(windowed), opBatch...)
	slices.Sort(u.windowed)
	return u, nil
}

// intsOf reads a dimension list ("[0, 1]") as numbers.
func intsOf(toks []token) []int64 {
	var out []int64
	for _, n := range numbers(toks) {
		v, _ := strconv.ParseInt(n, 10, 64)
		out = append(out, v)
	}
	return out
}

// listText prints numbers as HLO's "{0,1}".
func listText(v []int64) string {
	s := make([]string, len(v))
	for i, x := range v {
		s[i] = strconv.FormatInt(x, 10)
	}
	return "{" + strings.Join(s, ",") + "}"
}
