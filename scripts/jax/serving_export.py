# Exports a small Llama-style serving session from JAX: a prefill program and a
# decode-step program that carries a KV cache (donated, as servers run it), with
# seeded inputs, XLA's outputs for the prefill and the first decode step, and
# the tokens a greedy 16-step session generates. Pulse's serving example
# (docs/serving.md) runs the same session and checks it against these.
#
# Usage: JAX_PLATFORMS=cpu python3 serving_export.py OUTDIR   (JAX 0.11, XLA on CPU)
# Writes OUTDIR/llama_serving_tiny/: prefill.{mlir,hlo} and decode.{mlir,hlo};
# prefill.in.N.npy, the prefill's inputs (the weights, f32 values exact in f16
# and saved as f16, then the prompt); prefill.out.0.npy and decode.out.0.npy,
# the logits XLA computes for the prefill and the first decode step; and
# session.json (the config, the prompt, the generated tokens, XLA's memory
# analysis of both programs). The decode step's other inputs are the prefill's
# caches, the token and the position, as pulse serve binds them.
import json, os, sys

os.environ.setdefault("JAX_PLATFORMS", "cpu")
import numpy as np
import jax
import jax.numpy as jnp
from jax import lax

# "tiny" (the default) runs the session and saves its data; "1b" (a
# Llama-3.2-1B-like shape, bf16 weights of 16 layers) saves the programs
# alone, for timing-only serving runs.
SIZE = sys.argv[2] if len(sys.argv) > 2 else "tiny"
OUT = os.path.join(sys.argv[1], "llama_serving_" + SIZE)
os.makedirs(OUT, exist_ok=True)
rng = np.random.default_rng(20261127)

CFG = {
    "tiny": dict(vocab=256, d=128, layers=2, heads=4, kv=2, ffn=352, max_len=64, batch=2, prompt=16, steps=16),
    "1b": dict(vocab=32000, d=2048, layers=16, heads=32, kv=8, ffn=8192, max_len=2048, batch=8, prompt=1024, steps=16),
}[SIZE]
DT = jnp.float32 if SIZE == "tiny" else jnp.bfloat16
V, D, L, H, KV, F, M, B, P, STEPS = (CFG[k] for k in ("vocab", "d", "layers", "heads", "kv", "ffn", "max_len", "batch", "prompt", "steps"))
DH = D // H


def w(*s, scale):
    if SIZE != "tiny":
        return jax.ShapeDtypeStruct(s, DT)  # programs only: no values
    # f32 weights whose values are exact in f16, saved as f16: half the bytes.
    return jnp.asarray((rng.standard_normal(s) * scale).astype(np.float16).astype(np.float32))


def ones(*s):
    return jax.ShapeDtypeStruct(s, DT) if SIZE != "tiny" else jnp.ones(s, DT)


params = {
    "emb": w(V, D, scale=0.02),
    "g1": ones(L, D), "g2": ones(L, D),
    "wq": w(L, D, H * DH, scale=D ** -0.5), "wk": w(L, D, KV * DH, scale=D ** -0.5),
    "wv": w(L, D, KV * DH, scale=D ** -0.5), "wo": w(L, H * DH, D, scale=D ** -0.5),
    "wg": w(L, D, F, scale=D ** -0.5), "wu": w(L, D, F, scale=D ** -0.5), "wd": w(L, F, D, scale=F ** -0.5),
    "norm": ones(D), "out": w(D, V, scale=D ** -0.5),
}


def rmsnorm(x, g):
    xf = x.astype(jnp.float32)
    return (xf * lax.rsqrt(jnp.mean(xf * xf, -1, keepdims=True) + 1e-6) * g).astype(x.dtype)


def rope(x, pos):  # x [B, T, h, DH], pos [T]
    half = DH // 2
    inv = 1.0 / (10000 ** (jnp.arange(half, dtype=jnp.float32) / half))
    ang = pos.astype(jnp.float32)[:, None] * inv[None]
    c, s = jnp.cos(ang)[None, :, None, :], jnp.sin(ang)[None, :, None, :]
    x1, x2 = x[..., :half].astype(jnp.float32), x[..., half:].astype(jnp.float32)
    return jnp.concatenate([x1 * c - x2 * s, x1 * s + x2 * c], -1).astype(x.dtype)


def attend(q, k, v, mask):  # q [B,T,H,DH], k/v [B,S,KV,DH], mask [T,S]
    k = jnp.repeat(k, H // KV, axis=2)
    v = jnp.repeat(v, H // KV, axis=2)
    s = jnp.einsum("bthd,bshd->bhts", q, k).astype(jnp.float32) / np.sqrt(DH)
    s = jnp.where(mask[None, None], s, -1e30)
    return jnp.einsum("bhts,bshd->bthd", jax.nn.softmax(s, -1).astype(v.dtype), v)


def layers(p, x, kc, vc, pos, mask):
    # x [B,T,D]; kc/vc [L,B,M,KV,DH]; pos [T] the positions x holds.
    T = x.shape[1]

    def layer(x, a):
        lw, kl, vl = a
        h = rmsnorm(x, lw["g1"])
        q = rope((h @ lw["wq"]).reshape(B, T, H, DH), pos)
        k = rope((h @ lw["wk"]).reshape(B, T, KV, DH), pos)
        v = (h @ lw["wv"]).reshape(B, T, KV, DH)
        kl = lax.dynamic_update_slice_in_dim(kl, k, pos[0], axis=1)
        vl = lax.dynamic_update_slice_in_dim(vl, v, pos[0], axis=1)
        x = x + attend(q, kl, vl, mask).reshape(B, T, H * DH) @ lw["wo"]
        h = rmsnorm(x, lw["g2"])
        x = x + (jax.nn.silu(h @ lw["wg"]) * (h @ lw["wu"])) @ lw["wd"]
        return x, (kl, vl)

    lw = {k: p[k] for k in ("g1", "g2", "wq", "wk", "wv", "wo", "wg", "wu", "wd")}
    x, (kc, vc) = lax.scan(layer, x, (lw, kc, vc))
    return x, kc, vc


def prefill(p, tok):  # tok [B, P] int32
    x = p["emb"][tok]
    kc = jnp.zeros((L, B, M, KV, DH), DT)
    vc = jnp.zeros((L, B, M, KV, DH), DT)
    pos = jnp.arange(P, dtype=jnp.int32)
    mask = jnp.arange(M)[None, :] <= pos[:, None]
    x, kc, vc = layers(p, x, kc, vc, pos, mask)
    logits = (rmsnorm(x[:, -1], p["norm"]) @ p["out"]).astype(jnp.float32)
    return logits, kc, vc


def decode(p, kc, vc, tok, pos):  # tok [B] int32, pos s32[] where tok goes
    x = p["emb"][tok][:, None]
    posv = pos[None]
    mask = jnp.arange(M)[None, :] <= posv[:, None]
    x, kc, vc = layers(p, x, kc, vc, posv, mask)
    logits = (rmsnorm(x[:, 0], p["norm"]) @ p["out"]).astype(jnp.float32)
    return logits, kc, vc


def hlo_text(lowered):
    try:
        return lowered.as_text(dialect="hlo")
    except Exception:
        return lowered.compiler_ir("hlo").as_hlo_text()


def export(name, jf, args):
    lowered = jf.lower(*args)
    compiled = lowered.compile()
    open(os.path.join(OUT, name + ".mlir"), "w").write(lowered.as_text())
    open(os.path.join(OUT, name + ".hlo"), "w").write(hlo_text(lowered))
    ma = compiled.memory_analysis()
    return {k: getattr(ma, k) for k in dir(ma) if k.endswith("_in_bytes")}


def save(name, a, dtype=None):
    a = np.asarray(a)
    if dtype is not None:
        a = a.astype(dtype)
    np.save(os.path.join(OUT, name), a)
    return {"file": name, "dtype": a.dtype.name, "shape": list(a.shape)}


jprefill = jax.jit(prefill)
jdecode = jax.jit(decode, donate_argnums=(1, 2))
meta = {"config": CFG, "jax": jax.__version__}
if SIZE != "tiny":
    S = jax.ShapeDtypeStruct
    cache = S((L, B, M, KV, DH), DT)
    meta["prefill_memory"] = export("prefill", jprefill, (params, S((B, P), jnp.int32)))
    meta["decode_memory"] = export("decode", jdecode, (params, cache, cache, S((B,), jnp.int32), S((), jnp.int32)))
    json.dump(meta, open(os.path.join(OUT, "session.json"), "w"), indent=1)
    print("ok llama_serving_" + SIZE, flush=True)
    sys.exit(0)
prompt = jnp.asarray(rng.integers(0, V, (B, P)).astype(np.int32))
meta["prefill_memory"] = export("prefill", jprefill, (params, prompt))
logits, kc, vc = jprefill(params, prompt)
leaves = jax.tree_util.tree_leaves(params)
meta["prefill_inputs"] = [save(f"prefill.in.{i}.npy", a, np.float16) for i, a in enumerate(leaves)]
meta["prefill_inputs"].append(save(f"prefill.in.{len(leaves)}.npy", prompt))
meta["prefill_logits"] = save("prefill.out.0.npy", logits)
tok = jnp.argmax(logits, -1).astype(jnp.int32)
meta["decode_memory"] = export("decode", jdecode, (params, kc, vc, tok, jnp.int32(P)))
generated = [np.asarray(tok).tolist()]
for step in range(STEPS):
    logits, kc, vc = jdecode(params, kc, vc, tok, jnp.int32(P + step))
    if step == 0:
        meta["decode_logits"] = save("decode.out.0.npy", logits)
    tok = jnp.argmax(logits, -1).astype(jnp.int32)
    generated.append(np.asarray(tok).tolist())
meta["prompt"] = np.asarray(prompt).tolist()
# generated[0] is the prefill's token; generated[i] the i-th decode step's.
meta["generated"] = generated
json.dump(meta, open(os.path.join(OUT, "session.json"), "w"), indent=1)
print("ok llama_serving_tiny", flush=True)
