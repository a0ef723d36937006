package stablehlo

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/pulse-sim/pulse/hlo"
)

// Shardy, the sharding dialect JAX 0.11 writes for sharded programs, is
// read into the HLO JAX itself prints for them (lowered.as_text(dialect=
// "hlo")), where package partition reads it:
//
//   - sdy.mesh @mesh = <["x"=8]> becomes the module's
//     frontend_attributes={xla.sdy.meshes={mesh = #sdy.mesh<["x"=8]>}};
//   - an argument's {sdy.sharding = #sdy.sharding<@mesh, [...]>} its
//     parameter's frontend_attributes={xla.sdy.sharding="..."};
//   - a result's sharding an xla.sdy.FuncResultSharding custom call on
//     the returned value;
//   - sdy.sharding_constraint and sdy.reshard a Sharding custom call;
//   - sdy.manual_computation (a shard_map) the body as a computation,
//     called between xla.sdy.GlobalToLocalShape and LocalToGlobalShape
//     custom calls that carry its in- and out-shardings and manual axes;
//   - a collective's #stablehlo.replica_group_mesh_axes<mesh = @m, axes =
//     [...]> HLO's mesh['x'=8] {'x'}.
//
// The module then declares no partitions: Pulse's partitioner makes them.

// meshDecl is one sdy.mesh of the module.
type meshDecl struct {
	name string // without the @
	text string // <["x"=8]>
	axes []string
	size []string
}

// attrText writes tokens back as MLIR text (strings quoted again).
func attrText(toks []token) string {
	var b strings.Builder
	for i, t := range toks {
		if t.kind == tString {
			b.WriteString(`"` + t.text + `"`)
		} else {
			b.WriteString(t.text)
		}
		if t.text == "," && i+1 < len(toks) {
			b.WriteByte(' ')
		}
	}
	return b.String()
}

// balanced is the group that starts at toks[0] ((, [, { or <) through
// its closing token.
func balanced(toks []token) []token {
	depth := 0
	for i, t := range toks {
		switch t.text {
		case "(", "[", "{", "<":
			depth++
		case ")", "]", "}", ">":
			depth--
			if depth == 0 {
				return toks[:i+1]
			}
		}
	}
	return toks
}

// sdyAttr finds key = #sdy.x<...> (or key=[...], key={...}) in toks and
// returns the value as text ("" when absent).
func sdyAttr(toks []token, key string) string {
	for i := 0; i+2 < len(toks); i++ {
		if toks[i].text != key || toks[i+1].text != "=" {
			continue
		}
		v := toks[i+2:]
		if strings.HasPrefix(v[0].text, "#") && len(v) > 1 && v[1].text == "<" {
			return v[0].text + attrText(balanced(v[1:]))
		}
		return attrText(balanced(v))
	}
	return ""
}

// meshDecl reads sdy.mesh @name = <...> {attributes} at the cursor.
func (r *reader) meshDecl() error {
	r.next()
	name := r.next()
	if name.kind != tSymbol {
		return r.errAt(name, "sdy.mesh wants a @name")
	}
	if err := r.expect("="); err != nil {
		return err
	}
	if r.peek().text != "<" {
		return r.errAt(r.peek(), "sdy.mesh wants <[\"axis\"=size, ...]>")
	}
	start := r.p
	r.skipBalanced()
	if r.toks[r.p-1].text != ">" {
		return r.errAt(r.toks[start], "sdy.mesh: unterminated <...>")
	}
	m := meshDecl{name: strings.Trim(name.text[1:], `"`), text: attrText(r.toks[start:r.p])}
	for i, t := range r.toks[start:r.p] {
		if t.kind == tString && i+2 < r.p-start && r.toks[start+i+1].text == "=" {
			size := r.toks[start+i+2]
			// A name of letters, digits and _ (Shardy's), a size that is
			// a positive number: anything else would be carried into the
			// HLO text unread.
			if n, err := strconv.ParseInt(size.text, 10, 64); err != nil || n < 1 || !meshAxisName(t.text) {
				return r.errAt(t, "sdy.mesh: an axis is \"name\"=size, a name of letters, digits and _ and a positive size")
			}
			m.axes = append(m.axes, t.text)
			m.size = append(m.size, size.text)
		}
	}
	if r.peek().text == "{" {
		r.skipBalanced()
	}
	r.meshes = append(r.meshes, m)
	return nil
}

// meshAxisName reports whether a mesh axis name is one Shardy writes.
func meshAxisName(s string) bool {
	if s == "" {
		return false
	}
	for _, c := range s {
		if c != '_' && !(c >= '0' && c <= '9') && !(c >= 'a' && c <= 'z') && !(c >= 'A' && c <= 'Z') {
			return false
		}
	}
	return true
}

// meshesAttr is the module's frontend attribute listing the meshes.
func (r *reader) meshesAttr() string {
	var parts []string
	for _, m := range r.meshes {
		parts = append(parts, m.name+" = #sdy.mesh"+m.text)
	}
	return "frontend_attributes={xla.sdy.meshes={" + strings.Join(parts, ", ") + "}}"
}

// quoted escapes an attribute's text for an HLO frontend attribute.
func quoted(s string) string { return `"` + strings.ReplaceAll(s, `"`, `\"`) + `"` }

// perValue writes shardings as #sdy.sharding_per_value<[<...>, ...]>.
func perValue(shardings ...string) string {
	var items []string
	for _, s := range shardings {
		items = append(items, strings.TrimPrefix(s, "#sdy.sharding"))
	}
	return "#sdy.sharding_per_value<[" + strings.Join(items, ", ") + "]>"
}

// meshGroups translates #stablehlo.replica_group_mesh_axes<mesh = @m,
// axes = [#stablehlo.axis_ref<name = "x">, ...]> into HLO's mesh form.
func (b *builder) meshGroups(toks []token) (string, error) {
	mesh := ""
	var axes []string
	for i, t := range toks {
		if t.text == "mesh" && i+2 < len(toks) && toks[i+1].text == "=" {
			mesh = strings.Trim(strings.TrimPrefix(toks[i+2].text, "@"), `"`)
		}
		if t.text == "name" && i+2 < len(toks) && toks[i+1].text == "=" && toks[i+2].kind == tString {
			if !meshAxisName(toks[i+2].text) {
				return "", fmt.Errorf("axis name %q is not one of letters, digits and _", toks[i+2].text)
			}
			axes = append(axes, "'"+toks[i+2].text+"'")
		}
		if t.text == "sub_axis_info" {
			return "", fmt.Errorf("replica groups over sub-axes are not read yet")
		}
	}
	for _, m := range b.r.meshes {
		if m.name != mesh {
			continue
		}
		var dims []string
		for i, a := range m.axes {
			dims = append(dims, fmt.Sprintf("'%s'=%s", a, m.size[i]))
		}
		return "mesh[" + strings.Join(dims, ",") + "] {" + strings.Join(axes, ",") + "}", nil
	}
	return "", fmt.Errorf("no sdy.mesh @%s", mesh)
}

// shardy translates Shardy's ops; handled is false for other ops.
func (b *builder) shardy(s *stmt, sc *scope) (handled bool, err error) {
	at := token{line: s.line, col: s.col}
	p := hlo.Pos{Line: s.line, Col: s.col}
	switch s.op {
	case "sdy.sharding_constraint", "sdy.reshard":
		pre, typ := split(s.toks)
		_, outs, err := b.types(typ)
		if err != nil {
			return true, err
		}
		ops := values(pre)
		if len(ops) != 1 || len(outs) != 1 || len(s.results) != 1 {
			return true, b.r.errAt(at, "%s takes one value", s.op)
		}
		var sh []token
		for i, t := range pre {
			if t.text == "<" {
				sh = balanced(pre[i:])
				break
			}
		}
		if sh == nil {
			return true, b.r.errAt(at, "%s wants a sharding <@mesh, [...]>", s.op)
		}
		res := hloName(s.results[0])
		b.emitLine(fmt.Sprintf("  %s = %s custom-call(%s), custom_call_target=\"Sharding\", frontend_attributes={xla.sdy.sharding=%s}",
			res, outs[0], hloName(ops[0]), quoted("#sdy.sharding"+attrText(sh))), p)
		sc.shapes[res] = outs[0]
		return true, nil
	case "sdy.manual_computation":
		return true, b.manualComputation(s, sc)
	case "sdy.named_computation":
		return true, b.namedComputation(s, sc)
	case "sdy.propagation_barrier":
		pre, typ := split(s.toks)
		_, outs, err := b.types(typ)
		if err != nil {
			return true, err
		}
		ops := values(pre)
		if len(ops) != 1 || len(outs) != 1 || len(s.results) != 1 {
			return true, b.r.errAt(at, "%s takes one value", s.op)
		}
		res := hloName(s.results[0])
		b.emitLine(fmt.Sprintf("  %s = %s copy(%s)", res, outs[0], hloName(ops[0])), p)
		sc.shapes[res] = outs[0]
		return true, nil
	case "sdy.sharding_group":
		return true, nil // a propagation hint with no value
	}
	return false, nil
}

// resultSharding puts an op's own sdy.sharding (one value's) on the HLO
// instruction that defines its result, as a frontend attribute the
// partitioner reads as a sharding constraint.
func (b *builder) resultSharding(s *stmt) {
	if len(s.results) != 1 || len(s.counts) != 1 || s.counts[0] != 1 {
		return
	}
	sh := sdyAttr(s.toks, "sdy.sharding")
	if !strings.HasPrefix(sh, "#sdy.sharding_per_value<[<") || strings.Count(sh, "<@") != 1 {
		return
	}
	prefix := "  " + hloName(s.results[0]) + " = "
	for i := len(b.lines) - 1; i >= 0; i-- {
		if strings.HasPrefix(b.lines[i], prefix) {
			if !strings.Contains(b.lines[i], "frontend_attributes=") {
				b.lines[i] += ", frontend_attributes={xla.sdy.sharding=" + quoted(sh) + "}"
			}
			return
		}
	}
}

// bodyCall reads the operands of an op with a body (the values in its
// first (...) group) and the body's arguments (the (%a: type, ...) group
// before it), checking that they match in number and that the operands
// are defined.
func (b *builder) bodyCall(s *stmt, pre []token, sc *scope) (ops []string, args []arg, err error) {
	at := token{line: s.line, col: s.col}
	var argToks []token
	for i := 0; i < len(pre); i++ {
		if pre[i].text != "(" {
			continue
		}
		g := balanced(pre[i:])
		if ops == nil {
			ops = []string{}
			for _, t := range g {
				if t.kind == tValue {
					ops = append(ops, t.text)
				}
			}
		} else if argToks == nil && len(g) > 2 && g[1].kind == tValue && g[2].text == ":" {
			argToks = g
		}
		i += len(g) - 1
	}
	for _, o := range ops {
		if _, ok := sc.shapes[hloName(o)]; !ok {
			return nil, nil, b.r.errAt(at, "%s is not defined before its use", o)
		}
	}
	// Each argument's type runs from its ":" to the next top-level comma.
	for i := 1; i+2 < len(argToks); i++ {
		if argToks[i].kind != tValue || argToks[i+1].text != ":" {
			continue
		}
		j, depth := i+2, 0
	scan:
		for ; j < len(argToks)-1; j++ {
			switch argToks[j].text {
			case "<", "(", "[":
				depth++
			case ">", ")", "]":
				depth--
			case ",":
				if depth == 0 {
					break scan
				}
			}
		}
		tys, _, err := b.types(argToks[i+2 : j])
		if err != nil || len(tys) != 1 {
			return nil, nil, b.r.errAt(at, "%s: the body's argument %s", s.op, argToks[i].text)
		}
		args = append(args, arg{name: argToks[i].text, shape: tys[0]})
		i = j
	}
	if len(args) != len(ops) {
		return nil, nil, b.r.errAt(at, "%s: %d body arguments for %d operands", s.op, len(args), len(ops))
	}
	return ops, args, nil
}

// namedComputation (jax.named_scope and friends) is its body, called.
func (b *builder) namedComputation(s *stmt, sc *scope) error {
	at := token{line: s.line, col: s.col}
	p := hlo.Pos{Line: s.line, Col: s.col}
	if len(s.regions) != 1 || len(s.results) == 0 {
		return b.r.errAt(at, "sdy.named_computation needs its body and results")
	}
	pre, typ := split(s.toks)
	_, outs, err := b.types(typ)
	if err != nil {
		return err
	}
	ops, args, err := b.bodyCall(s, pre, sc)
	if err != nil {
		return err
	}
	var hops []string
	for _, o := range ops {
		hops = append(hops, hloName(o))
	}
	body := s.regions[0]
	for _, st := range body {
		if st.op == "sdy.return" {
			st.op = "stablehlo.return"
		}
	}
	res := hloName(s.results[0])
	comp, err := b.regionComp(res+".named", args, body, sc)
	if err != nil {
		return err
	}
	shape := outs[0]
	if len(outs) > 1 {
		shape = "(" + strings.Join(outs, ", ") + ")"
	}
	made := res + ".call"
	b.emitLine(fmt.Sprintf("  %s = %s call(%s), to_apply=%s", made, shape, strings.Join(hops, ", "), comp), p)
	b.unpack(res, made, outs, p, sc, s.results...)
	return nil
}

// manualComputation writes a shard_map as JAX's HLO has it: the body a
// computation of its own, called on the local shards.
func (b *builder) manualComputation(s *stmt, sc *scope) error {
	at := token{line: s.line, col: s.col}
	p := hlo.Pos{Line: s.line, Col: s.col}
	if len(s.regions) != 1 {
		return b.r.errAt(at, "sdy.manual_computation needs its body")
	}
	if len(s.results) == 0 {
		return b.r.errAt(at, "sdy.manual_computation without a result")
	}
	pre, typ := split(s.toks)
	ins, outs, err := b.types(typ)
	if err != nil {
		return err
	}
	ops, args, err := b.bodyCall(s, pre, sc)
	if err != nil {
		return err
	}
	if len(ops) != len(ins) {
		return b.r.errAt(at, "sdy.manual_computation: %d operands for %d types", len(ops), len(ins))
	}
	var local []string
	for _, a := range args {
		local = append(local, a.shape)
	}
	inSh, outSh := sdyAttr(pre, "in_shardings"), sdyAttr(pre, "out_shardings")
	axes := sdyAttr(pre, "manual_axes")
	if inSh == "" || outSh == "" || axes == "" {
		return b.r.errAt(at, "sdy.manual_computation wants in_shardings, out_shardings and manual_axes")
	}
	body := s.regions[0]
	for _, st := range body {
		if st.op == "sdy.return" {
			st.op = "stablehlo.return"
		}
	}
	res := hloName(s.results[0])
	comp, err := b.regionComp(res+".body", args, body, sc)
	if err != nil {
		return err
	}
	manual := "xla.sdy.manual_axes=" + quoted("#sdy<manual_axes"+axes+">")
	var localNames []string
	g2l := res + ".local"
	if len(ops) == 1 {
		b.emitLine(fmt.Sprintf("  %s = %s custom-call(%s), custom_call_target=\"xla.sdy.GlobalToLocalShape\", custom_call_has_side_effect=true, frontend_attributes={xla.sdy.in_shardings=%s,%s}",
			g2l, local[0], hloName(ops[0]), quoted("#sdy.sharding_per_value<"+inSh+">"), manual), p)
		localNames = []string{g2l}
	} else {
		var hops []string
		for _, o := range ops {
			hops = append(hops, hloName(o))
		}
		b.emitLine(fmt.Sprintf("  %s = (%s) custom-call(%s), custom_call_target=\"xla.sdy.GlobalToLocalShape\", custom_call_has_side_effect=true, frontend_attributes={xla.sdy.in_shardings=%s,%s}",
			g2l, strings.Join(local, ", "), strings.Join(hops, ", "), quoted("#sdy.sharding_per_value<"+inSh+">"), manual), p)
		for i, l := range local {
			n := fmt.Sprintf("%s.%d", g2l, i)
			b.emitLine(fmt.Sprintf("  %s = %s get-tuple-element(%s), index=%d", n, l, g2l, i), p)
			localNames = append(localNames, n)
		}
	}
	// The body's results: the region's return types.
	var bodyOuts []string
	for _, st := range body {
		if st.op == "stablehlo.return" {
			_, typ := split(st.toks)
			if _, bodyOuts, err = b.types(typ); err != nil {
				return err
			}
		}
	}
	if len(bodyOuts) != len(outs) {
		return b.r.errAt(at, "sdy.manual_computation: its body returns %d values for %d results", len(bodyOuts), len(outs))
	}
	call := res + ".call"
	callShape := bodyOuts[0]
	if len(bodyOuts) > 1 {
		callShape = "(" + strings.Join(bodyOuts, ", ") + ")"
	}
	b.emitLine(fmt.Sprintf("  %s = %s call(%s), to_apply=%s", call, callShape, strings.Join(localNames, ", "), comp), p)
	parts := []string{call}
	if len(bodyOuts) > 1 {
		parts = nil
		for i, o := range bodyOuts {
			n := fmt.Sprintf("%s.%d", call, i)
			b.emitLine(fmt.Sprintf("  %s = %s get-tuple-element(%s), index=%d", n, o, call, i), p)
			parts = append(parts, n)
		}
	}
	globalShape := outs[0]
	if len(outs) > 1 {
		globalShape = "(" + strings.Join(outs, ", ") + ")"
	}
	made := res + ".global"
	b.emitLine(fmt.Sprintf("  %s = %s custom-call(%s), custom_call_target=\"xla.sdy.LocalToGlobalShape\", custom_call_has_side_effect=true, frontend_attributes={xla.sdy.out_shardings=%s,%s}",
		made, globalShape, strings.Join(parts, ", "), quoted("#sdy.sharding_per_value<"+outSh+">"), manual), p)
	b.unpack(res, made, outs, p, sc, s.results...)
	return nil
}
