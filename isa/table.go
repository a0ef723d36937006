package isa

// Unit is the execution unit an instruction is dispatched to.
type Unit uint8

const (
	UnitScalar Unit = iota // the sequencer executes it itself
	UnitDMA
	UnitMXU
	UnitVPU
	UnitXLU
	NumUnits
)

var unitNames = [...]string{"scalar", "dma", "mxu", "vpu", "xlu"}

func (u Unit) String() string {
	if int(u) < len(unitNames) {
		return unitNames[u]
	}
	return "unit?"
}

// Format is an operand format: which operands an instruction takes and which
// encoding fields hold them.
type Format uint8

const (
	FmtNone   Format = iota // no operands
	FmtRRR                  // rd, rs1, rs2
	FmtRRI                  // rd, rs1, imm
	FmtRI                   // rd, imm
	FmtBranch               // rs1, rs2, target
	FmtJump                 // target
	FmtLoop                 // rd, target
	FmtLoad                 // rd, [rs1+imm]
	FmtStore                // rs2, [rs1+imm]
	FmtSemImm               // sem, imm
	FmtT1                   // tile0
	FmtT2                   // tile0 (dst), tile1 (src)
	FmtT3                   // tile0 (dst), tile1, tile2
	FmtT3Opt                // tile0 (dst), tile1, optional tile2
	FmtT1Imm                // tile0 (dst), imm (typed by tile0's dtype when the op says so)
	FmtT2F2                 // tile0 (dst), tile1, f32 a, f32 b
	numFormats
)

// Operand kinds, in the order an instruction's text lists them.
type OperandKind uint8

const (
	OpdRd OperandKind = iota
	OpdRs1
	OpdRs2
	OpdImm
	OpdTarget
	OpdMem // [rs1+imm]
	OpdSem
	OpdTile0
	OpdTile1
	OpdTile2
	OpdTile2Opt
	OpdFA
	OpdFB
)

var formatOperands = [numFormats][]OperandKind{
	FmtNone:   nil,
	FmtRRR:    {OpdRd, OpdRs1, OpdRs2},
	FmtRRI:    {OpdRd, OpdRs1, OpdImm},
	FmtRI:     {OpdRd, OpdImm},
	FmtBranch: {OpdRs1, OpdRs2, OpdTarget},
	FmtJump:   {OpdTarget},
	FmtLoop:   {OpdRd, OpdTarget},
	FmtLoad:   {OpdRd, OpdMem},
	FmtStore:  {OpdRs2, OpdMem},
	FmtSemImm: {OpdSem, OpdImm},
	FmtT1:     {OpdTile0},
	FmtT2:     {OpdTile0, OpdTile1},
	FmtT3:     {OpdTile0, OpdTile1, OpdTile2},
	FmtT3Opt:  {OpdTile0, OpdTile1, OpdTile2Opt},
	FmtT1Imm:  {OpdTile0, OpdImm},
	FmtT2F2:   {OpdTile0, OpdTile1, OpdFA, OpdFB},
}

var formatNames = [numFormats]string{"none", "rrr", "rri", "ri", "branch", "jump", "loop", "load", "store",
	"sem-imm", "t1", "t2", "t3", "t3opt", "t1imm", "t2f2"}

func (f Format) String() string { return formatNames[f] }

// Operands lists the operand kinds of the format.
func (f Format) Operands() []OperandKind { return formatOperands[f] }

// Op identifies a row of Table.
type Op uint16

// OpInfo is one row of the instruction table.
type OpInfo struct {
	Mnemonic string
	Code     uint8 // binary opcode
	Func     uint8 // binary sub-operation
	Format   Format
	Unit     Unit
	// TypedImm: the FmtT1Imm immediate is an element value of tile0's dtype
	// (f32 bits for float dtypes, a signed integer otherwise).
	TypedImm bool
	// Passes: the instruction takes "passes N" (the flags field): the
	// bf16 passes an f32 stream costs, as XLA's precisions on a TPU.
	Passes    bool
	Semantics string
	Timing    string
}

// MaxPasses bounds "passes N": XLA's HIGHEST precision is six bf16 passes.
const MaxPasses = 8

// Opcodes. The values are part of the binary encoding.
const (
	CodeNop     = 0x00
	CodeALU     = 0x01
	CodeALUI    = 0x02
	CodeLI      = 0x03
	CodeBranch  = 0x04
	CodeJmp     = 0x05
	CodeLoop    = 0x06
	CodeLd      = 0x07
	CodeSt      = 0x08
	CodeHalt    = 0x09
	CodeSignal  = 0x10
	CodeWait    = 0x11
	CodeSemSet  = 0x12
	CodeBarrier = 0x13
	CodeDMA     = 0x20
	CodeLdw     = 0x30
	CodeMM      = 0x31
	CodeVBin    = 0x40
	CodeVCmp    = 0x41
	CodeVSel    = 0x42
	CodeVUn     = 0x43
	CodeVCvt    = 0x44
	CodeVCopy   = 0x45
	CodeVRed    = 0x46
	CodeVBcast  = 0x47
	CodeVIota   = 0x48
	CodeVFill   = 0x49
	CodeVScale  = 0x4a
	CodeVAct    = 0x4b
	CodeXpose   = 0x50
	CodeXRed    = 0x51
)

// Scalar ALU functions (CodeALU / CodeALUI).
const (
	AluAdd uint8 = iota
	AluSub
	AluMul
	AluAnd
	AluOr
	AluXor
	AluShl
	AluShr
	AluSra
	AluMin
	AluMax
	AluSlt
	AluSltu
	AluSeq
	AluSne
	numAlu
)

// Branch conditions.
const (
	BrEq uint8 = iota
	BrNe
	BrLt
	BrGe
	BrLtu
	BrGeu
)

// Vector binary functions.
const (
	VAdd uint8 = iota
	VSub
	VMul
	VDiv
	VMax
	VMin
	VPow
	VAnd
	VOr
	VXor
	VShl
	VShr
	VSra
)

// Comparisons.
const (
	CmpEq uint8 = iota
	CmpNe
	CmpLt
	CmpLe
	CmpGt
	CmpGe
)

// Unary functions, shared by vun (all) and vact (FnNone..FnExp).
const (
	FnNone uint8 = iota
	FnRelu
	FnGelu
	FnTanh
	FnLogistic
	FnExp
	FnNeg
	FnAbs
	FnLog
	FnSqrt
	FnRsqrt
	FnRcp
	FnFloor
	FnCeil
	FnRound
	FnSign
	FnNot
)

// Reductions.
const (
	RedSum uint8 = iota
	RedMax
	RedMin
	RedAnd
	RedOr
)

// MXU stream modes.
const (
	MMOverwrite uint8 = iota
	MMAccumulate
)

// MXU weight loads: the tile in sram is W[K,N] itself, or its transpose
// W^T[N,K] (the operand of x . W^T, PyTorch's Linear and attention's Q K^T,
// read from HBM in its own contiguous rows).
const (
	LdwPlain uint8 = iota
	LdwTransposed
)

const (
	tScalar = "1 of `scalar.issue_width` issue slots of a cycle"
	tBranch = "1 issue slot; + `scalar.branch_penalty` cycles when taken"
	tDMA    = "after `dma.setup_ns`, bursts of `dma.burst_bytes` that follow the off-chip side's contiguous runs (an on-chip side's runs less than a bank line apart join one burst), at most `dma.max_outstanding` in flight, at most `dma.engine_gbps`; HBM side per the `hbm.*` model, shared first come first served; host side through the host link (`host.link_gbps` each way, `host.latency_ns`), shared likewise; the next descriptor starts once this one's last burst is issued, its setup counted from then, or with `dma.prefetch` from when it was queued and its semaphore met, once one of that many setup slots is free"
	tLdw    = "ws: K rows (mxu.ldwt: the tile's K columns) x `mxu.ldw_cycles_per_row` into the shadow weight registers, beside the running stream; starts after the previous load and once the last swap has passed the rows it overwrites (swap start + row + C); os, is: nothing (W streams)"
	tMM     = "starts when the previous stream's rows have entered and new weights are loaded; occupies max(M x rate, `mxu.min_stream_cycles`), rate `mxu.cycles_per_row`[dtype] (an f32 stream with passes N: min(max(N x the bf16 rate, `mxu.f32_feed_cycles`), the f32 rate)); last result lands at start + (M-1) x rate + R + N - 1 (ws; os: start + M + N + (K-1) x rate - 1, the next instruction at start + (K-1) x rate + 1 with `mxu.fold_overlap`; is: the X block loads like a weight tile, then N columns stream: docs/dataflows.md)"
	tVPU    = "occupies max(ceil(elements / (`vpu.lanes` x `vpu.sublanes`)) x op cost cycles of the vector clock, the time the `sram`/`acc` banks take to serve its operands' lines (a source's dims of stride 0 read once, as a broadcast load does; a source whose minor dim steps less than a line reads the lines it spans once; none for `vreg` operands)); completes `vpu.latency` later; op cost 1, `vpu.transcendental_cost` (exp log tanh logistic gelu) or `vpu.divide_cost` (div pow sqrt rsqrt rcp), doubled when an operand is s64 or u64 or the instruction moves f64 data (the lanes are 32 bits wide); f64 arithmetic costs `vpu.f64_cost` times as much (emulated); each f16 operand read and f16 result written adds `vpu.f16_convert_cost` per element group (lanes that emulate f16; not for instructions that only move elements)"
	tXLU    = "occupies max(ceil(elements / `vpu.lanes`) cycles (doubled for s64 and u64), the banks' time for its operands); completes `xlu.latency` later"
)

func alu(m string, f uint8, sem string) OpInfo {
	return OpInfo{Mnemonic: m, Code: CodeALU, Func: f, Format: FmtRRR, Unit: UnitScalar,
		Semantics: "rd = " + sem, Timing: tScalar}
}

func alui(m string, f uint8, sem string) OpInfo {
	return OpInfo{Mnemonic: m, Code: CodeALUI, Func: f, Format: FmtRRI, Unit: UnitScalar,
		Semantics: "rd = " + sem, Timing: tScalar}
}

func br(m string, f uint8, cond string) OpInfo {
	return OpInfo{Mnemonic: m, Code: CodeBranch, Func: f, Format: FmtBranch, Unit: UnitScalar,
		Semantics: "if " + cond + " then pc = target", Timing: tBranch}
}

func vbin(m string, f uint8, sem string) OpInfo {
	return OpInfo{Mnemonic: m, Code: CodeVBin, Func: f, Format: FmtT3, Unit: UnitVPU,
		Semantics: "dst = " + sem + ", elementwise (src b may broadcast through stride-0 dimensions)", Timing: tVPU}
}

func vcmp(m string, f uint8, op string) OpInfo {
	return OpInfo{Mnemonic: m, Code: CodeVCmp, Func: f, Format: FmtT3, Unit: UnitVPU,
		Semantics: "dst(pred) = a " + op + " b, elementwise; NaN compares unequal", Timing: tVPU}
}

func vun(m string, f uint8, sem string) OpInfo {
	return OpInfo{Mnemonic: m, Code: CodeVUn, Func: f, Format: FmtT2, Unit: UnitVPU,
		Semantics: "dst = " + sem + ", elementwise", Timing: tVPU}
}

func vact(m string, f uint8, fn string) OpInfo {
	return OpInfo{Mnemonic: m, Code: CodeVAct, Func: f, Format: FmtT3Opt, Unit: UnitVPU,
		Semantics: "epilogue: dst = cast(" + fn + "(src + bias)); bias (optional) is a row [1,N] or a full tile; src is usually in acc", Timing: tVPU}
}

func vred(m string, f uint8, op string) OpInfo {
	return OpInfo{Mnemonic: m, Code: CodeVRed, Func: f, Format: FmtT2, Unit: UnitVPU,
		Semantics: "dst[..., 0] = " + op + " over the last (free) dimension of src, in index order; dst has src's shape with the last dimension 1", Timing: tVPU}
}

func xred(m string, f uint8, op string) OpInfo {
	return OpInfo{Mnemonic: m, Code: CodeXRed, Func: f, Format: FmtT2, Unit: UnitXLU,
		Semantics: "dst[0, ...] = " + op + " over the first (partition) dimension of src, in index order; dst has src's shape with the first dimension 1", Timing: tXLU}
}

// Table is the instruction set. Encoder, decoder, printer, the assembler's
// mnemonic table and docs/isa.md are all driven by it.
var Table = []OpInfo{
	{Mnemonic: "nop", Code: CodeNop, Format: FmtNone, Unit: UnitScalar, Semantics: "does nothing (the all-zero word)", Timing: tScalar},
	{Mnemonic: "halt", Code: CodeHalt, Format: FmtNone, Unit: UnitScalar, Semantics: "stops fetching; the program ends when every unit has drained its queue", Timing: tScalar},

	alu("add", AluAdd, "rs1 + rs2"), alu("sub", AluSub, "rs1 - rs2"), alu("mul", AluMul, "rs1 * rs2 (low 32 bits)"),
	alu("and", AluAnd, "rs1 & rs2"), alu("or", AluOr, "rs1 | rs2"), alu("xor", AluXor, "rs1 ^ rs2"),
	alu("shl", AluShl, "rs1 << (rs2 & 31)"), alu("shr", AluShr, "rs1 >> (rs2 & 31), logical"), alu("sra", AluSra, "rs1 >> (rs2 & 31), arithmetic"),
	alu("min", AluMin, "signed min(rs1, rs2)"), alu("max", AluMax, "signed max(rs1, rs2)"),
	alu("slt", AluSlt, "rs1 < rs2 signed ? 1 : 0"), alu("sltu", AluSltu, "rs1 < rs2 unsigned ? 1 : 0"),
	alu("seq", AluSeq, "rs1 == rs2 ? 1 : 0"), alu("sne", AluSne, "rs1 != rs2 ? 1 : 0"),

	alui("addi", AluAdd, "rs1 + imm"), alui("subi", AluSub, "rs1 - imm"), alui("muli", AluMul, "rs1 * imm (low 32 bits)"),
	alui("andi", AluAnd, "rs1 & imm"), alui("ori", AluOr, "rs1 | imm"), alui("xori", AluXor, "rs1 ^ imm"),
	alui("shli", AluShl, "rs1 << (imm & 31)"), alui("shri", AluShr, "rs1 >> (imm & 31), logical"), alui("srai", AluSra, "rs1 >> (imm & 31), arithmetic"),
	alui("mini", AluMin, "signed min(rs1, imm)"), alui("maxi", AluMax, "signed max(rs1, imm)"),
	alui("slti", AluSlt, "rs1 < imm signed ? 1 : 0"), alui("sltui", AluSltu, "rs1 < imm unsigned ? 1 : 0"),
	alui("seqi", AluSeq, "rs1 == imm ? 1 : 0"), alui("snei", AluSne, "rs1 != imm ? 1 : 0"),

	{Mnemonic: "li", Code: CodeLI, Format: FmtRI, Unit: UnitScalar, Semantics: "rd = imm (32 bits)", Timing: tScalar},
	br("beq", BrEq, "rs1 == rs2"), br("bne", BrNe, "rs1 != rs2"), br("blt", BrLt, "rs1 < rs2 (signed)"),
	br("bge", BrGe, "rs1 >= rs2 (signed)"), br("bltu", BrLtu, "rs1 < rs2 (unsigned)"), br("bgeu", BrGeu, "rs1 >= rs2 (unsigned)"),
	{Mnemonic: "jmp", Code: CodeJmp, Format: FmtJump, Unit: UnitScalar, Semantics: "pc = target", Timing: tBranch},
	{Mnemonic: "loop", Code: CodeLoop, Format: FmtLoop, Unit: UnitScalar, Semantics: "counted loop: rd = rd - 1; if rd != 0 then pc = target", Timing: tBranch},
	{Mnemonic: "ld", Code: CodeLd, Format: FmtLoad, Unit: UnitScalar, Semantics: "rd = smem32[rs1 + imm] (4-byte aligned)", Timing: tScalar + "; the sequencer waits `scalar.smem_latency` cycles"},
	{Mnemonic: "st", Code: CodeSt, Format: FmtStore, Unit: UnitScalar, Semantics: "smem32[rs1 + imm] = rs2 (4-byte aligned)", Timing: tScalar},

	{Mnemonic: "signal", Code: CodeSignal, Format: FmtSemImm, Unit: UnitScalar, Semantics: "sem = sem + imm (imm >= 1)", Timing: tScalar},
	{Mnemonic: "wait", Code: CodeWait, Format: FmtSemImm, Unit: UnitScalar, Semantics: "block the sequencer until sem >= imm, then sem = sem - imm (imm >= 1)", Timing: tScalar + "; the sequencer stalls while blocked"},
	{Mnemonic: "semset", Code: CodeSemSet, Format: FmtSemImm, Unit: UnitScalar, Semantics: "sem = imm (imm >= 0)", Timing: tScalar},
	{Mnemonic: "barrier", Code: CodeBarrier, Format: FmtNone, Unit: UnitScalar, Semantics: "block the sequencer until every unit queue is empty and every unit idle", Timing: tScalar + "; the sequencer stalls while blocked"},

	{Mnemonic: "dma", Code: CodeDMA, Format: FmtT2, Unit: UnitDMA, Semantics: "copy src to dst element by element in row-major index order of each tile; same dtype and element count; any of hbm, sram, acc, smem, host on either side", Timing: tDMA},

	{Mnemonic: "mxu.ldw", Code: CodeLdw, Format: FmtT1, Unit: UnitMXU, Semantics: "load the weight operand W[K,N] from sram into the MXU; later streams use it (ws: K <= mxu.rows, N <= mxu.cols; os: N <= mxu.cols; is: K <= mxu.rows)", Timing: tLdw},
	{Mnemonic: "mxu.ldwt", Code: CodeLdw, Func: LdwTransposed, Format: FmtT1, Unit: UnitMXU, Semantics: "load the weight operand W[K,N] from sram holding its transpose W^T[N,K] (the weight path transposes as it loads); later streams use W, as after mxu.ldw, with the same bounds on K and N", Timing: tLdw},
	{Mnemonic: "mxu.mm", Code: CodeMM, Func: MMOverwrite, Format: FmtT2, Unit: UnitMXU, Passes: true, Semantics: "dst[M,N] (acc) = X[M,K] (sram) x W; each output is summed down its column k = 0..K-1 in f32 (s32 for integers), starting from 0", Timing: tMM},
	{Mnemonic: "mxu.mma", Code: CodeMM, Func: MMAccumulate, Format: FmtT2, Unit: UnitMXU, Passes: true, Semantics: "dst[M,N] (acc) = dst + X[M,K] x W; the column sum is formed as for mxu.mm, then added to dst (which must have been written)", Timing: tMM},

	vbin("vadd", VAdd, "a + b"), vbin("vsub", VSub, "a - b"), vbin("vmul", VMul, "a * b"),
	vbin("vdiv", VDiv, "a / b (integer: truncating, x/0 = -1, MIN/-1 = MIN)"), vbin("vmax", VMax, "max(a, b) (NaN wins)"), vbin("vmin", VMin, "min(a, b) (NaN wins)"),
	vbin("vpow", VPow, "a ** b"), vbin("vand", VAnd, "a & b (integer and pred only)"), vbin("vor", VOr, "a | b (integer and pred only)"),
	vbin("vxor", VXor, "a ^ b (integer and pred only)"), vbin("vshl", VShl, "a << b; 0 when b, read unsigned, is at least the bit width (integer only)"),
	vbin("vshr", VShr, "a >> b, logical; 0 when b, read unsigned, is at least the bit width (integer only)"),
	vbin("vsra", VSra, "a >> b, arithmetic; the sign fills when b, read unsigned, is at least the bit width (integer only)"),
	vcmp("vcmp.eq", CmpEq, "=="), vcmp("vcmp.ne", CmpNe, "!="), vcmp("vcmp.lt", CmpLt, "<"),
	vcmp("vcmp.le", CmpLe, "<="), vcmp("vcmp.gt", CmpGt, ">"), vcmp("vcmp.ge", CmpGe, ">="),
	{Mnemonic: "vsel", Code: CodeVSel, Format: FmtT3, Unit: UnitVPU, Semantics: "dst = mask ? src : dst, elementwise (operands: dst, mask(pred), src)", Timing: tVPU},
	vun("vneg", FnNeg, "-x"), vun("vabs", FnAbs, "|x|"), vun("vexp", FnExp, "e^x"), vun("vlog", FnLog, "ln x"),
	vun("vtanh", FnTanh, "tanh x"), vun("vlogistic", FnLogistic, "1 / (1 + e^-x)"), vun("vsqrt", FnSqrt, "sqrt x"),
	vun("vrsqrt", FnRsqrt, "1 / sqrt x"), vun("vrcp", FnRcp, "1 / x"), vun("vrelu", FnRelu, "max(x, 0)"),
	vun("vgelu", FnGelu, "0.5x(1 + tanh(sqrt(2/pi)(x + 0.044715x^3))) (tanh approximation)"),
	vun("vfloor", FnFloor, "floor x"), vun("vceil", FnCeil, "ceil x"), vun("vround", FnRound, "x rounded to nearest, ties to even"),
	vun("vsign", FnSign, "-1, 0 or 1 by the sign of x (NaN stays NaN)"), vun("vnot", FnNot, "logical not for pred, bitwise not for integers"),
	{Mnemonic: "vcvt", Code: CodeVCvt, Format: FmtT2, Unit: UnitVPU, Semantics: "dst = src converted to dst's dtype by the cast rules", Timing: tVPU},
	{Mnemonic: "vcopy", Code: CodeVCopy, Format: FmtT2, Unit: UnitVPU, Semantics: "dst = src (same dtype and element count; reshapes and strided copies)", Timing: tVPU},
	vred("vrsum", RedSum, "sum (f32 or s32)"), vred("vrmax", RedMax, "max"), vred("vrmin", RedMin, "min"),
	vred("vrand", RedAnd, "and (integer and pred)"), vred("vror", RedOr, "or (integer and pred)"),
	{Mnemonic: "vbcast", Code: CodeVBcast, Format: FmtT2, Unit: UnitVPU, Semantics: "broadcast src to dst's shape; each src dimension is 1 or equal to dst's (scalar [1,1], row [1,N], column [M,1])", Timing: tVPU},
	{Mnemonic: "viota", Code: CodeVIota, Format: FmtT1Imm, Unit: UnitVPU, Semantics: "dst[i...] = index of dimension imm (integers wrap around their width)", Timing: tVPU},
	{Mnemonic: "vfill", Code: CodeVFill, Format: FmtT1Imm, Unit: UnitVPU, TypedImm: true, Semantics: "memset: dst = imm (a value of dst's dtype)", Timing: tVPU},
	{Mnemonic: "vscale", Code: CodeVScale, Format: FmtT2F2, Unit: UnitVPU, Semantics: "dst = src * a + b, a and b f32 immediates, computed in f32", Timing: tVPU},
	vact("vact", FnNone, "identity"), vact("vact.relu", FnRelu, "relu"), vact("vact.gelu", FnGelu, "gelu_tanh"),
	vact("vact.tanh", FnTanh, "tanh"), vact("vact.logistic", FnLogistic, "logistic"), vact("vact.exp", FnExp, "exp"),

	{Mnemonic: "xpose", Code: CodeXpose, Format: FmtT2, Unit: UnitXLU, Semantics: "dst[N,M] = transpose of src[M,N] (same dtype)", Timing: tXLU},
	xred("xred.sum", RedSum, "sum (f32 or s32)"), xred("xred.max", RedMax, "max"), xred("xred.min", RedMin, "min"),
}

var (
	byMnemonic = map[string]Op{}
	byCode     = map[uint16]Op{}
)

func init() {
	for i := range Table {
		info := &Table[i]
		if _, dup := byMnemonic[info.Mnemonic]; dup {
			panic("isa: duplicate mnemonic " + info.Mnemonic)
		}
		key := uint16(info.Code)<<8 | uint16(info.Func)
		if _, dup := byCode[key]; dup {
			panic("isa: duplicate opcode/func for " + info.Mnemonic)
		}
		byMnemonic[info.Mnemonic] = Op(i)
		byCode[key] = Op(i)
	}
}

// Lookup finds an instruction by mnemonic.
func Lookup(mnemonic string) (Op, bool) {
	op, ok := byMnemonic[mnemonic]
	return op, ok
}

// Info returns the table row of op.
func (op Op) Info() *OpInfo { return &Table[op] }

func (op Op) String() string { return Table[op].Mnemonic }

// OpByName panics when the mnemonic is unknown; for code and tests that name
// instructions statically.
func OpByName(m string) Op {
	op, ok := byMnemonic[m]
	if !ok {
		panic("isa: no instruction " + m)
	}
	return op
}
