package stablehlo

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/pulse-sim/pulse/hlo"
)

// collective translates StableHLO's collectives into HLO's: replica_groups
// (a dense i64 matrix, rows padded with -1) into HLO's listed groups,
// source_target_pairs likewise, channel_handle's handle into channel_id,
// use_global_device_ids as it is; all_reduce's and reduce_scatter's
// region into the reducer computation, all_gather_dim, scatter_dimension
// and an all_to_all's split/concat dimension into dimensions={d}. Several
// operands make the variadic forms. An all_to_all whose split and concat
// dimensions differ has no one-op HLO form and is refused, naming them.
func (b *builder) collective(name string, s *stmt, sc *scope, pre []token, ops, outs []string, res string, p hlo.Pos) error {
	at := token{line: s.line, col: s.col}
	var h []string
	for _, o := range ops {
		h = append(h, hloName(o))
	}
	var attrs []string
	if name == "collective_permute" {
		pairs, err := denseMatrix(after(pre, "source_target_pairs"))
		if err != nil {
			return b.r.errAt(at, "%s: source_target_pairs: %v", s.op, err)
		}
		attrs = append(attrs, "source_target_pairs="+pairs)
	} else if g := after(pre, "replica_groups"); len(g) > 0 && g[0].text == "#stablehlo.replica_group_mesh_axes" {
		groups, err := b.meshGroups(g)
		if err != nil {
			return b.r.errAt(at, "%s: replica_groups: %v", s.op, err)
		}
		attrs = append(attrs, "replica_groups="+groups)
	} else if len(g) > 0 {
		groups, err := denseMatrix(g)
		if err != nil {
			return b.r.errAt(at, "%s: replica_groups: %v", s.op, err)
		}
		attrs = append(attrs, "replica_groups="+groups)
	} else {
		attrs = append(attrs, "replica_groups={}")
	}
	if c := attrNumber(after(pre, "channel_handle"), "handle"); c > 0 {
		attrs = append(attrs, fmt.Sprintf("channel_id=%d", c))
	}
	for _, t := range pre {
		if t.text == "use_global_device_ids" {
			attrs = append(attrs, "use_global_device_ids=true")
			break
		}
	}
	dim := func(key string) (string, error) {
		v := numbers(after(pre, key))
		if len(v) != 1 {
			return "", b.r.errAt(at, "%s needs %s", s.op, key)
		}
		return v[0], nil
	}
	opcode := strings.ReplaceAll(name, "_", "-")
	switch name {
	case "all_reduce", "reduce_scatter":
		if len(s.regions) != 1 || len(s.rargs) != 1 {
			return b.r.errAt(at, "%s needs its reduction region", s.op)
		}
		comp, err := b.regionComp(res+".reducer", s.rargs[0], s.regions[0], sc)
		if err != nil {
			return err
		}
		if name == "reduce_scatter" {
			d, err := dim("scatter_dimension")
			if err != nil {
				return err
			}
			attrs = append(attrs, "dimensions={"+d+"}")
		}
		attrs = append(attrs, "to_apply="+comp)
	case "all_gather":
		d, err := dim("all_gather_dim")
		if err != nil {
			return err
		}
		attrs = append(attrs, "dimensions={"+d+"}")
	case "all_to_all":
		split, err := dim("split_dimension")
		if err != nil {
			return err
		}
		concat, err := dim("concat_dimension")
		if err != nil {
			return err
		}
		if split != concat {
			if len(ops) != 1 || len(outs) != 1 {
				return b.r.errAt(at, "unsupported: %s of several operands with split_dimension %s and concat_dimension %s", s.op, split, concat)
			}
			return b.allToAllAcross(res, h[0], sc.shapes[h[0]], outs[0], split, concat, numbers(after(pre, "split_count")), attrs, p, sc, at, s.op)
		}
		attrs = append(attrs, "dimensions={"+split+"}")
	}
	if len(outs) == 0 {
		return b.r.errAt(at, "%s without a result type", s.op)
	}
	shape := outs[0]
	if len(outs) > 1 {
		shape = "(" + strings.Join(outs, ", ") + ")"
	}
	made := res
	if len(outs) > 1 {
		made = res + "." + opcode
	}
	b.emitLine(fmt.Sprintf("  %s = %s %s(%s), %s", made, shape, opcode, strings.Join(h, ", "), strings.Join(attrs, ", ")), p)
	if len(outs) > 1 {
		b.unpack(res, made, outs, p, sc, s.results...)
		return nil
	}
	sc.shapes[res] = shape
	return nil
}

// allToAllAcross writes an all_to_all that splits one dimension and
// concatenates along another, which HLO's all-to-all (one dimension for
// both) does not express, as XLA's partitioner writes such a move: the
// split dimension cut into split_count pieces as a new major dimension,
// that dimension exchanged (piece j to the group's j-th member), and the
// pieces received made the major part of the concat dimension.
func (b *builder) allToAllAcross(res, x, in, out, splitText, concatText string, count []string, attrs []string, p hlo.Pos, sc *scope, at token, op string) error {
	dims, elem := dimsOf(in), elemOf(in)
	split, err1 := strconv.Atoi(splitText)
	concat, err2 := strconv.Atoi(concatText)
	if err1 != nil || err2 != nil || split < 0 || concat < 0 || split >= len(dims) || concat >= len(dims) || len(count) != 1 {
		return b.r.errAt(at, "%s: split_dimension, concat_dimension and split_count out of range", op)
	}
	g, err := strconv.ParseInt(count[0], 10, 64)
	if err != nil || g < 1 || dims[split]%g != 0 {
		return b.r.errAt(at, "%s: split_count %s does not divide dimension %d (%d)", op, count[0], split, dims[split])
	}
	shape := func(d []int64) string { return fmt.Sprintf("%s[%s]", elem, strings.Trim(listText(d), "{}")) }
	m := append([]int64(nil), dims...)
	m[split] /= g
	cut := append(append(append([]int64(nil), dims[:split]...), g, m[split]), dims[split+1:]...)
	perm := []int64{int64(split)}
	for d := range cut {
		if d != split {
			perm = append(perm, int64(d))
		}
	}
	front := append([]int64{g}, m...)
	back := []int64{}
	for d := 1; d <= concat; d++ {
		back = append(back, int64(d))
	}
	back = append(back, 0)
	for d := concat + 1; d < len(front); d++ {
		back = append(back, int64(d))
	}
	moved := append(append(append([]int64(nil), m[:concat]...), g), m[concat:]...)
	var keep []string
	for _, a := range attrs {
		if !strings.HasPrefix(a, "use_global_device_ids") {
			keep = append(keep, a)
		}
	}
	b.emitLine(fmt.Sprintf("  %s.cut = %s reshape(%s)", res, shape(cut), x), p)
	b.emitLine(fmt.Sprintf("  %s.front = %s transpose(%s.cut), dimensions=%s", res, shape(front), res, listText(perm)), p)
	b.emitLine(fmt.Sprintf("  %s.exchanged = %s all-to-all(%s.front), %s, dimensions={0}", res, shape(front), res, strings.Join(keep, ", ")), p)
	b.emitLine(fmt.Sprintf("  %s.back = %s transpose(%s.exchanged), dimensions=%s", res, shape(moved), res, listText(back)), p)
	b.emitLine(fmt.Sprintf("  %s = %s reshape(%s.back)", res, out, res), p)
	sc.shapes[res] = out
	return nil
}

// denseMatrix reads dense<[[0, 1], [2, 3]]> : tensor<2x2xi64> as HLO's
// {{0,1},{2,3}}, dropping the -1s that pad ragged rows.
func denseMatrix(toks []token) (string, error) {
	var rows [][]string
	depth := 0
	var cur []string
	seen := false
	for _, t := range toks {
		switch t.text {
		case "[":
			depth++
			if depth == 2 {
				cur = []string{}
			}
		case "]":
			if depth == 2 {
				rows = append(rows, cur)
				cur = nil
			}
			depth--
		case ":":
			if depth == 0 {
				goto done
			}
		case ",", "dense", "<", ">":
		default:
			if depth == 2 {
				n, err := strconv.ParseInt(t.text, 10, 64)
				if err != nil {
					return "", fmt.Errorf("%q is not a device id", t.text)
				}
				seen = true
				if n >= 0 {
					cur = append(cur, strconv.FormatInt(n, 10))
				}
			}
		}
	}
done:
	if !seen && len(rows) == 0 {
		return "{}", nil
	}
	var sb strings.Builder
	sb.WriteString("{")
	for i, r := range rows {
		if i > 0 {
			sb.WriteString(",")
		}
		sb.WriteString("{" + strings.Join(r, ",") + "}")
	}
	sb.WriteString("}")
	return sb.String(), nil
}
