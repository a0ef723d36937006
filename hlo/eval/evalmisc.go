package eval

import (
	"github.com/pulse-sim/pulse/hlo"
	"github.com/pulse-sim/pulse/hlo/eval/scalar"
	"github.com/pulse-sim/pulse/hlo/expand"
	"sort"
	"strconv"
	"strings"
)

// bitcastConvert reinterprets the bits of each element (little-endian when
// the widths differ: a wider element splits into a trailing dimension of
// narrower ones, least significant first, and the reverse).
func (e *Evaluator) bitcastConvert(in *hlo.Instruction, src *Value) (*Value, error) {
	from, to := src.Shape.Elem, in.Shape.Elem
	fb, tb := hlo.ElemBits(from), hlo.ElemBits(to)
	if fb == 0 || tb == 0 {
		return nil, e.Fail(in, "cannot reinterpret %s as %s", from, to)
	}
	out := NewArray(in.Shape)
	switch {
	case fb == tb:
		for i, x := range src.Data {
			out.Data[i] = scalar.FromBits(to, scalar.Bits(from, x))
		}
	case fb > tb:
		k := fb / tb
		if int64(len(out.Data)) != int64(len(src.Data))*int64(k) {
			return nil, e.Fail(in, "%s to %s needs a trailing dimension of %d", src.Shape, in.Shape, k)
		}
		for i, x := range src.Data {
			b := scalar.Bits(from, x)
			for j := range k {
				out.Data[i*k+j] = scalar.FromBits(to, b>>(j*tb))
			}
		}
	default:
		k := tb / fb
		if int64(len(src.Data)) != int64(len(out.Data))*int64(k) {
			return nil, e.Fail(in, "%s to %s needs a trailing dimension of %d", src.Shape, in.Shape, k)
		}
		for i := range out.Data {
			var b uint64
			for j := range k {
				b |= scalar.Bits(from, src.Data[i*k+j]) << (j * fb)
			}
			out.Data[i] = scalar.FromBits(to, b)
		}
	}
	return out, nil
}

// mapOp applies to_apply to the operands' elements at every position.
func (e *Evaluator) mapOp(in *hlo.Instruction, ops []*Value) (*Value, error) {
	c, err := e.Callee(in, "to_apply")
	if err != nil {
		return nil, err
	}
	out := NewArray(in.Shape)
	args := make([]*Value, len(ops))
	for i := range out.Data {
		for k, o := range ops {
			if len(o.Data) != len(out.Data) {
				return nil, e.Fail(in, "operand %d has %d elements, the result %d", k, len(o.Data), len(out.Data))
			}
			args[k] = Scalar(o.Shape.Elem, o.Data[i])
		}
		v, err := e.Call(c, args)
		if err != nil {
			return nil, err
		}
		out.Data[i] = v.Data[0]
	}
	return out, nil
}

// devices returns how many devices the module runs on, as its header says
// (replica_count x num_partitions, 1 when absent).
func (e *Evaluator) devices() int64 {
	n := int64(1)
	for _, k := range []string{"replica_count", "num_partitions"} {
		if v, ok := e.M.Attr(k); ok {
			if x, err := strconv.ParseInt(v, 10, 64); err == nil && x > 0 {
				n *= x
			}
		}
	}
	return n
}

// collective evaluates a collective on a single device, where it moves no
// data: all-reduce, all-gather, reduce-scatter and all-to-all return their
// operands, and collective-permute its operand if the device sends to itself
// (zeros otherwise). Across several devices it is an error: the host
// evaluator runs one device.
func (e *Evaluator) collective(in *hlo.Instruction, ops []*Value) (*Value, error) {
	shapes := make([]*hlo.Shape, len(ops))
	for i, o := range ops {
		shapes[i] = o.Shape
	}
	n := max(e.devices(), hlo.CollectiveSpan(in, shapes))
	if n > 1 && e.Device == nil {
		return nil, e.Fail(in, "a collective across %d devices: evaluate it on them (pulse hlo eval --replicas N --partitions P; spmd.RunDevices)", n)
	}
	base := strings.TrimSuffix(strings.TrimSuffix(in.Opcode, "-start"), "-done")
	if strings.HasSuffix(in.Opcode, "-done") {
		// The -done half returns what the -start half computed: element 1
		// of its (operand, result, contexts...) tuple, or the value itself.
		if t := ops[0].Tuple; len(t) >= 2 && in.Shape != nil && ops[0].Shape != nil && t[1].Shape != nil &&
			!hlo.SameShape(ops[0].Shape, in.Shape) && hlo.SameShape(t[1].Shape, in.Shape) {
			return t[1], nil
		}
		return ops[0], nil
	}
	if e.Device != nil {
		result, err := e.Device.Collective(e, in, base, ops, nil)
		if err != nil {
			return nil, err
		}
		return e.wrapStart(in, base, ops, result), nil
	}
	result := ops[0]
	if len(ops) > 1 || base == "all-to-all" && in.Shape.IsTuple && !ops[0].Shape.IsTuple {
		// (All-to-all's tuple form returns a tuple even of one operand.)
		result = &Value{Shape: &hlo.Shape{IsTuple: true}, Tuple: ops}
	}
	if base == "collective-permute" {
		pairs, _ := in.Attr("source_target_pairs")
		if !strings.Contains(strings.ReplaceAll(pairs, " ", ""), "{0,0}") {
			result = zerosLike(ops[0])
		}
	}
	if !WrapsOperands(in, base, len(ops), ops[0].Shape.IsTuple) {
		if !hlo.SameShape(result.Shape, in.Shape) && !result.Shape.IsTuple {
			return nil, e.Fail(in, "on one device the result %s should equal the operand %s", in.Shape, result.Shape)
		}
		return &Value{Shape: in.Shape, Data: result.Data, Tuple: result.Tuple}, nil
	}
	return e.wrapStart(in, base, ops, result), nil
}

// WrapsOperands says whether a collective's -start returns its operands
// beside its result, ((operands), result, contexts...) — an all-gather-start
// of one operand, (operand, result), or of several, ((a, b), (ra, rb)) —
// rather than the result alone (an all-reduce-start, variadic or not).
func WrapsOperands(in *hlo.Instruction, base string, operands int, firstIsTuple bool) bool {
	if in.Opcode == base || in.Shape == nil || !in.Shape.IsTuple || len(in.Shape.Tuple) < 2 || firstIsTuple {
		return false
	}
	if operands == 1 {
		return true
	}
	return in.Shape.Tuple[0].IsTuple && len(in.Shape.Tuple[0].Tuple) == operands
}

// wrapStart returns a -start's ((operands), result, contexts...) tuple when
// it has that form (WrapsOperands), else result under the op's shape.
func (e *Evaluator) wrapStart(in *hlo.Instruction, base string, ops []*Value, result *Value) *Value {
	if !WrapsOperands(in, base, len(ops), ops[0].Shape.IsTuple) {
		return &Value{Shape: in.Shape, Data: result.Data, Tuple: result.Tuple}
	}
	operands := ops[0]
	if len(ops) > 1 {
		operands = &Value{Shape: in.Shape.Tuple[0], Tuple: ops}
	}
	result = &Value{Shape: in.Shape.Tuple[1], Data: result.Data, Tuple: result.Tuple}
	t := &Value{Shape: in.Shape, Tuple: []*Value{operands, result}}
	for _, s := range in.Shape.Tuple[2:] {
		t.Tuple = append(t.Tuple, NewArray(s))
	}
	return t
}

func zerosLike(v *Value) *Value {
	if v.Tuple != nil {
		t := &Value{Shape: v.Shape}
		for _, x := range v.Tuple {
			t.Tuple = append(t.Tuple, zerosLike(x))
		}
		return t
	}
	return NewArray(v.Shape)
}

// minOperands are the operands the ops of evalMore read by position (a
// module the fuzzer writes may give fewer; XLA's verifier would refuse it).
var minOperands = map[string]int{"bitcast-convert": 1, "copy-start": 1, "copy-done": 1, "get-dimension-size": 1,
	"set-dimension-size": 2, "domain": 1, "add-dependency": 1, "async-update": 1, "async-done": 1, "rng": 2, "scaled-dot": 4}

// async evaluates async-start (runs the wrapped computation at once and
// returns the ((operands), result, context) tuple), async-update (passes it
// on) and async-done (takes the result out).
func (e *Evaluator) async(in *hlo.Instruction, ops []*Value) (*Value, error) {
	switch in.Opcode {
	case hlo.OpAsyncUpdate:
		return ops[0], nil
	case hlo.OpAsyncDone:
		if len(ops[0].Tuple) < 2 {
			return nil, e.Fail(in, "operand is not an async-start result")
		}
		return ops[0].Tuple[1], nil
	}
	c, err := e.Callee(in, "calls")
	if err != nil {
		return nil, err
	}
	r, err := e.Call(c, ops)
	if err != nil {
		return nil, err
	}
	if !in.Shape.IsTuple || len(in.Shape.Tuple) < 2 {
		return nil, e.Fail(in, "async-start should return a tuple")
	}
	t := &Value{Shape: in.Shape, Tuple: []*Value{{Shape: in.Shape.Tuple[0], Tuple: ops}, r}}
	for _, s := range in.Shape.Tuple[2:] {
		t.Tuple = append(t.Tuple, ZerosOf(s))
	}
	return t, nil
}

// shortAsync evaluates XLA's short async forms (asyncshort.go): the -start
// runs the op at once and returns ((operands), result, context...).
func (e *Evaluator) shortAsync(in *hlo.Instruction, ops []*Value, base, part string) (*Value, error) {
	if part != "start" && len(ops) != 1 {
		return nil, e.Fail(in, "takes the %s-start result", base)
	}
	switch part {
	case "update":
		return ops[0], nil
	case "done":
		if len(ops[0].Tuple) < 2 {
			return nil, e.Fail(in, "operand is not a %s-start result", base)
		}
		return ops[0].Tuple[1], nil
	}
	inner, ok := hlo.ShortAsyncInner(in, base)
	if !ok || !in.Shape.Tuple[0].IsTuple || len(in.Shape.Tuple[0].Tuple) != len(ops) {
		return nil, e.Fail(in, "should return ((operands), result, context...)")
	}
	r, err := e.eval(inner, ops, nil)
	if err != nil {
		return nil, err
	}
	t := &Value{Shape: in.Shape, Tuple: []*Value{{Shape: in.Shape.Tuple[0], Tuple: ops}, r}}
	for _, s := range in.Shape.Tuple[2:] {
		t.Tuple = append(t.Tuple, ZerosOf(s))
	}
	return t, nil
}

func ZerosOf(s *hlo.Shape) *Value {
	if s.IsTuple {
		t := &Value{Shape: s}
		for _, x := range s.Tuple {
			t.Tuple = append(t.Tuple, ZerosOf(x))
		}
		return t
	}
	return NewArray(s)
}

// dimensionSize evaluates get-dimension-size (the static size: the
// evaluator computes on bounded shapes) and set-dimension-size (returns its
// operand unchanged).
func (e *Evaluator) dimensionSize(in *hlo.Instruction, ops []*Value) (*Value, error) {
	dims, err := hlo.ListAttr(in, "dimensions")
	if err != nil || len(dims) != 1 || dims[0] < 0 || int(dims[0]) >= len(ops[0].Shape.Dims) {
		return nil, e.Fail(in, "needs one dimension of the operand")
	}
	if in.Opcode == hlo.OpSetDimensionSize {
		return &Value{Shape: in.Shape, Data: ops[0].Data}, nil
	}
	return &Value{Shape: in.Shape, Data: []float64{float64(ops[0].Shape.Dims[dims[0]])}}, nil
}

// evalMore dispatches the ops of the files evalgather.go, evalsort.go,
// evalselect.go, evalnorm.go, evalrng.go and this one.
func (e *Evaluator) evalMore(in *hlo.Instruction, ops []*Value) (*Value, bool, error) {
	if base, part, ok := hlo.ShortAsync(in.Opcode); ok {
		v, err := e.shortAsync(in, ops, base, part)
		return v, true, err
	}
	op := in.Opcode
	if n := minOperands[op]; len(ops) < n || hlo.IsCollective(op) && len(ops) == 0 {
		return nil, true, e.Fail(in, "takes at least %d operand(s), has %d", max(n, 1), len(ops))
	}
	var v *Value
	var err error
	switch {
	case hlo.IsCollective(op):
		v, err = e.collective(in, ops)
	case op == hlo.OpRaggedAllToAll:
		if e.Device != nil && hlo.GroupSize(in) != 1 {
			v, err = e.Device.Collective(e, in, "ragged-all-to-all", ops, in.Shape)
			return v, true, err
		}
		if n := max(e.devices(), hlo.GroupSize(in)); n > 1 && e.Device == nil {
			return nil, true, e.Fail(in, "a collective across %d devices cannot be evaluated on one host device", n)
		}
		v, err = e.byExpansion(in, soloText(in, ops), expand.ExpandRaggedAllToAll, ops)
	case op == hlo.OpGather:
		v, err = e.gather(in, ops)
	case op == hlo.OpScatter:
		v, err = e.scatter(in, ops)
	case op == hlo.OpSort:
		v, err = e.sortOp(in, ops)
	case op == hlo.OpTopk:
		v, err = e.topkOp(in, ops)
	case op == hlo.OpSelectAndScatter:
		v, err = e.selectAndScatter(in, ops)
	case op == hlo.OpTriangularSolve:
		v, err = e.byExpansion(in, soloText(in, ops), expand.ExpandTriangularSolves, ops)
	case op == hlo.OpCholesky:
		v, err = e.byExpansion(in, soloText(in, ops), expand.ExpandCholeskys, ops)
	case op == hlo.OpBatchNormTraining || op == hlo.OpBatchNormInference || op == hlo.OpBatchNormGrad:
		v, err = e.batchNorm(in, ops)
	case op == hlo.OpBitcastConvert:
		v, err = e.bitcastConvert(in, ops[0])
	case op == hlo.OpMap:
		v, err = e.mapOp(in, ops)
	case op == hlo.OpRng:
		v, err = e.rngOp(in, ops)
	case op == hlo.OpScaledDot:
		v, err = e.scaledDot(in, ops)
	case op == hlo.OpRngGetAndUpdateState:
		v, err = e.rngGetAndUpdateState(in)
	case op == hlo.OpRngBitGenerator:
		v, err = e.rngBitGenerator(in, ops)
	case op == hlo.OpGetDimensionSize || op == hlo.OpSetDimensionSize:
		v, err = e.dimensionSize(in, ops)
	case op == hlo.OpAsyncStart || op == hlo.OpAsyncUpdate || op == hlo.OpAsyncDone:
		v, err = e.async(in, ops)
	case op == hlo.OpPartitionId || op == hlo.OpReplicaId:
		v = NewArray(in.Shape) // device 0 of one
		if e.Device != nil && len(v.Data) == 1 {
			replica, partition := e.Device.ID()
			v.Data[0] = float64(replica)
			if op == hlo.OpPartitionId {
				v.Data[0] = float64(partition)
			}
		}
	case op == hlo.OpAddDependency || op == hlo.OpDomain:
		v = ops[0] // a domain only marks a sharding boundary
	case op == hlo.OpCopyStart:
		if !in.Shape.IsTuple || len(in.Shape.Tuple) < 2 {
			return nil, true, e.Fail(in, "copy-start should return a tuple")
		}
		v = ZerosOf(in.Shape)
		v.Tuple[0], v.Tuple[1] = ops[0], ops[0]
	case op == hlo.OpCopyDone:
		if len(ops[0].Tuple) < 1 {
			return nil, true, e.Fail(in, "operand is not a copy-start result")
		}
		v = ops[0].Tuple[0]
	case op == hlo.OpInfeed:
		v, err = e.infeed(in)
	case op == hlo.OpOutfeed:
		v, err = e.outfeed(in, ops)
	case (op == hlo.OpSend || op == hlo.OpRecv || op == hlo.OpSendDone || op == hlo.OpRecvDone) && hlo.IsHostTransfer(in):
		v, err = e.hostTransfer(in, ops)
	case op == hlo.OpSend || op == hlo.OpRecv || op == hlo.OpSendDone || op == hlo.OpRecvDone:
		v, err = e.deviceTransfer(in, ops)
	default:
		return nil, false, nil
	}
	return v, true, err
}

// EvaluatorOps lists, sorted, the opcodes the reference evaluator
// implements (custom-call for hlo.IsIdentityTarget's targets only).
func EvaluatorOps() []string {
	set := map[string]bool{}
	for _, op := range strings.Fields(hlo.StructuralOps) {
		set[op] = true
	}
	for _, op := range append(hlo.ElementwiseOps(), hlo.CollectiveOps()...) {
		set[op] = true
	}
	out := make([]string, 0, len(set))
	for op := range set {
		out = append(out, op)
	}
	sort.Strings(out)
	return out
}
