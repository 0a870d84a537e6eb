"""GPU peers of the bench kernels: each of bench/kernels/*.vrir written as a numba-cuda kernel
and, where the kernel reads naturally as array expressions, as CuPy code, on the inputs that
bench/src/kernels.rs generates (the same LCG, seeds, value ranges and sizes), so that
`vr-bench --gpu` and these peers time the same computation on the same data in one device call.

Every result is checked against a NumPy (CPU) reference of the same kernel, written to do the
same floating-point operations in the same order as the C reference (bench/c); where gcc is
present the C reference itself is built and compared with the NumPy one, which checks the
ported LCG and the references. Then each peer is timed:

  kernel: inputs already on the device, the launch(es), then a device synchronize;
  total:  host -> device of the inputs, the launch(es), device -> host of the results.

Both over --reps runs (median, min, max), after one untimed-in-the-median first call (its
time, which includes numba's JIT compilation or CuPy's kernel build, is recorded on its own).

    python3 bench/peers/gpu_peers.py [--quick] [--reps N] [--kernels a,b] [--out DIR]
                                     [--no-fma] [--no-c-check]

Rows go to DIR/peers-gpu.csv in the columns of vr-bench's CSV (bench/src/record.rs); a table
goes to stdout. Runs under numba's CUDA simulator too (NUMBA_ENABLE_CUDASIM=1, --quick), where
the times mean nothing and CuPy, absent, is skipped with a note. bench/peers/README.md has the
configurations and how to run this on the device machine.
"""
import argparse
import ctypes
import math
import os
import shutil
import subprocess
import sys
import tempfile
import time

import numpy as np

if not hasattr(np, "row_stack"):  # numba-cuda 0.30 still names np.row_stack (gone in NumPy 2.5)
    np.row_stack = np.vstack

try:
    # numba-cuda's .pth file imports this at start-up to make `numba.cuda` mean numba_cuda;
    # a folder on PYTHONPATH (the device's unpacked tarball) gets no .pth processing
    import _numba_cuda_redirector  # noqa: F401,E402
except ImportError:
    pass
from numba import cuda  # noqa: E402

try:
    import cupy as cp
    CUPY_MISSING = None
except Exception as e:  # not installed, or no CUDA driver: the CuPy configurations are skipped
    cp = None
    CUPY_MISSING = f"{type(e).__name__}: {e}"

SIMULATOR = os.environ.get("NUMBA_ENABLE_CUDASIM", "0") == "1"
HERE = os.path.dirname(os.path.abspath(__file__))
BENCH = os.path.dirname(HERE)
HEADER = "kernel,size,config,threads,median_s,min_s,max_s,reps,machine,date,commit"

# ---------------------------------------------------------------------------------------------
# Inputs: bench/src/kernels.rs's Lcg, ported exactly (64-bit wrapping arithmetic, Knuth's
# constants, the top 53 bits of the state over 2^53), vectorised by jumping ahead.

M64 = (1 << 64) - 1
LCG_A = 6364136223846793005
LCG_C = 1442695040888963407


class Lcg:
    """kernels.rs's `Lcg`: `take(n)` returns the next n values of `next()`, in order."""

    BLOCK = 1 << 14

    def __init__(self, seed):
        self.state = ((seed * 0x9E3779B97F4A7C15) & M64) | 1

    def take(self, n):
        # s_{k} = A^k s_0 + c_k with c_k = C (A^{k-1} + ... + 1): the first block from that
        # formula, every later block from the one before by the jump (A^B, c_B).
        b = min(self.BLOCK, max(n, 1))
        mul, add = [], []
        a_k, c_k = 1, 0
        for _ in range(b):
            a_k, c_k = (a_k * LCG_A) & M64, (c_k * LCG_A + LCG_C) & M64
            mul.append(a_k)
            add.append(c_k)
        mul = np.array(mul, dtype=np.uint64)
        add = np.array(add, dtype=np.uint64)
        block = mul * np.uint64(self.state) + add  # uint64 array arithmetic wraps mod 2^64
        jump_a, jump_c = np.uint64(a_k), np.uint64(c_k)
        blocks = [block]
        total = b
        while total < n:
            block = block * jump_a + jump_c
            blocks.append(block)
            total += b
        states = np.concatenate(blocks)[:n]
        if n:
            self.state = int(states[-1])
        return (states >> np.uint64(11)).astype(np.float64) / float(1 << 53)


def inputs(name, n):
    """kernels.rs's `inputs` of kernel `name` at size n, as a dict of NumPy arrays/scalars."""
    if name == "arc_distance":
        r = Lcg(1)
        t1, p1, t2, p2 = (r.take(n) * 3.0 - 1.5 for _ in range(4))
        return dict(theta_1=t1, phi_1=p1, theta_2=t2, phi_2=p2, out=np.zeros(n))
    if name == "julia_set":
        return dict(cr=-0.7, ci=0.27, bound=1.5, lim=1000.0, cutoff=300, out=np.zeros((n, n), np.int64))
    if name == "growcut":
        r = Lcg(2)
        image = r.take(n * n * 3).reshape(n, n, 3)
        k = np.arange(n * n * 2)
        cell = k // 2
        seed = cell % 97 == 0
        state = np.where(seed & (k % 2 == 0), 1 + cell % 3, np.where(seed, 1.0, 0.0)).astype(np.float64)
        return dict(image=image, state=state.reshape(n, n, 2), state_next=np.zeros((n, n, 2)), radius=1)
    if name == "rosen_der":
        return dict(x=Lcg(3).take(n) * 2.0, der=np.zeros(n))
    if name == "stencil5":
        return dict(a=Lcg(4).take(n * n).reshape(n, n), b=np.zeros((n, n)))
    if name == "matmul_loops":
        r = Lcg(5)
        a = r.take(n * n).reshape(n, n) - 0.5
        b = r.take(n * n).reshape(n, n) - 0.5
        return dict(a=a, b=b, c=np.zeros((n, n)))
    if name == "nbody1d":
        r = Lcg(6)
        x = r.take(n) * 100.0
        v = r.take(n) - 0.5
        m = r.take(n) + 0.5
        return dict(x=x, v=v, m=m, acc=np.zeros(n), dt=0.01, eps=1e-3)
    if name == "black_scholes":
        r = Lcg(7)
        s = 5.0 + r.take(n) * 25.0
        x = 1.0 + r.take(n) * 99.0
        t = 0.25 + r.take(n) * 9.75
        return dict(s=s, x=x, t=t, r=0.02, v=0.3, call_out=np.zeros(n), put_out=np.zeros(n))
    raise ValueError(name)


# Sizes of bench/src/kernels.rs (`size`, `quick_size`), in its order.
SIZES = {
    "arc_distance": (400_000, 100),
    "julia_set": (400, 8),
    "growcut": (500, 6),
    "rosen_der": (4_000_000, 100),
    "stencil5": (2000, 10),
    "matmul_loops": (300, 6),
    "nbody1d": (3000, 8),
    "black_scholes": (1_000_000, 100),
}

# ---------------------------------------------------------------------------------------------
# NumPy references: the C reference's operations in its order (so that, without FMA
# contraction, they agree with C to the bit), vectorised over the parfor's iterations. Each
# returns the results and, per float result, the magnitude of the terms that make it up
# (`scale`), against which the GPU's rounding differences are measured (see `check`).


def ref_arc_distance(p):
    st = np.sin((p["theta_2"] - p["theta_1"]) / 2.0)
    sp = np.sin((p["phi_2"] - p["phi_1"]) / 2.0)
    temp = st * st + (np.cos(p["theta_1"]) * np.cos(p["theta_2"])) * (sp * sp)
    out = 2.0 * np.arctan2(np.sqrt(temp), np.sqrt(1.0 - temp))
    return dict(out=out), dict(out=np.abs(out))


def julia_grid(p):
    n = p["out"].shape[0]
    step = (2.0 * p["bound"]) / float(n - 1)
    return -p["bound"] + np.arange(n, dtype=np.float64) * step


def ref_julia_set(p):
    g = julia_grid(p)
    zr = np.repeat(g[:, None], len(g), axis=1)
    zi = np.repeat(g[None, :], len(g), axis=0)
    count = np.zeros(zr.shape, np.int64)
    lim2 = p["lim"] * p["lim"]
    with np.errstate(over="ignore", invalid="ignore"):
        for _ in range(p["cutoff"]):
            live = (zr * zr + zi * zi) < lim2
            if not live.any():
                break
            t = (zr * zr - zi * zi) + p["cr"]
            zi = np.where(live, (2.0 * zr) * zi + p["ci"], zi)
            zr = np.where(live, t, zr)
            count += live
    return dict(out=count), {}


def ref_growcut(p):
    image, state, r = p["image"], p["state"], p["radius"]
    h, w = image.shape[:2]
    winning = state[:, :, 0].copy()
    defense = state[:, :, 1].copy()
    changes = 0
    sqrt_3 = math.sqrt(3.0)
    ii0, jj0 = np.indices((h, w))
    for dj in range(-r, r + 1):  # the C loop order: jj outer, ii inner
        for di in range(-r, r + 1):
            if di == 0 and dj == 0:
                continue
            ii, jj = ii0 + di, jj0 + dj
            valid = (ii >= 0) & (ii < h) & (jj >= 0) & (jj < w)
            iic, jjc = np.clip(ii, 0, h - 1), np.clip(jj, 0, w - 1)
            s = np.zeros((h, w))
            for k in range(3):
                d = image[:, :, k] - image[iic, jjc, k]
                s = s + d * d
            attack = (1.0 - np.sqrt(s) / sqrt_3) * state[iic, jjc, 1]
            won = valid & (attack > defense)
            defense = np.where(won, attack, defense)
            winning = np.where(won, state[iic, jjc, 0], winning)
            changes += int(won.sum())
    nxt = np.stack([winning, defense], axis=2)
    # strengths are products of gval (<= 1, formed by a cancellation 1 - sqrt(s)/sqrt(3)) and
    # a strength <= 1: their rounding is measured against 1
    return dict(state_next=nxt, changes=changes), dict(state_next=np.maximum(np.abs(nxt), 1.0))


def ref_rosen_der(p):
    x = p["x"]
    der = np.zeros_like(x)
    xm, xi, xp = x[:-2], x[1:-1], x[2:]
    der[1:-1] = 200.0 * (xi - xm * xm) - (400.0 * (xp - xi * xi)) * xi - 2.0 * (1.0 - xi)
    der[0] = (-400.0 * x[0]) * (x[1] - x[0] * x[0]) - 2.0 * (1.0 - x[0])
    der[-1] = 200.0 * (x[-1] - x[-2] * x[-2])
    scale = np.zeros_like(x)
    scale[1:-1] = 200.0 * (np.abs(xi) + xm * xm) + 400.0 * (np.abs(xp) + xi * xi) * np.abs(xi) + 2.0 * (1.0 + np.abs(xi))
    scale[0] = 400.0 * abs(x[0]) * (abs(x[1]) + x[0] * x[0]) + 2.0 * (1.0 + abs(x[0]))
    scale[-1] = 200.0 * (abs(x[-1]) + x[-2] * x[-2])
    return dict(der=der), dict(der=scale)


def ref_stencil5(p):
    a = p["a"]
    b = p["b"].copy()
    c = a[1:-1, 1:-1]
    b[1:-1, 1:-1] = 0.2 * ((((c + a[:-2, 1:-1]) + a[2:, 1:-1]) + a[1:-1, :-2]) + a[1:-1, 2:])
    scale = np.abs(b)
    scale[1:-1, 1:-1] = 0.2 * ((((np.abs(c) + np.abs(a[:-2, 1:-1])) + np.abs(a[2:, 1:-1])) + np.abs(a[1:-1, :-2])) + np.abs(a[1:-1, 2:]))
    return dict(b=b), dict(b=scale)


def ref_matmul_loops(p):
    a, b = p["a"], p["b"]
    s = np.zeros((a.shape[0], b.shape[1]))
    for k in range(a.shape[1]):  # C's k order, each step over every (i, j)
        s = s + a[:, k:k + 1] * b[k:k + 1, :]
    return dict(c=s), dict(c=np.abs(a) @ np.abs(b))


def ref_nbody1d(p):
    x, v, m, dt, eps = p["x"], p["v"], p["m"], p["dt"], p["eps"]
    acc = np.zeros_like(x)
    mag = np.zeros_like(x)
    for j in range(len(x)):  # C's j order, each step over every i
        d = x[j] - x
        r2 = d * d + eps
        term = (m[j] * d) / (r2 * np.sqrt(r2))
        acc = acc + term
        mag = mag + np.abs(term)
    v2 = v + acc * dt
    x2 = x + v2 * dt
    return (dict(x=x2, v=v2, acc=acc),
            dict(acc=mag, v=np.abs(v) + mag * dt, x=np.abs(x) + (np.abs(v) + mag * dt) * dt))


def cnd_np(d):
    k = 1.0 / (1.0 + 0.2316419 * np.abs(d))
    r = (0.3989422804014327 * np.exp((-0.5 * d) * d)) * (
        k * (0.31938153 + k * (-0.356563782 + k * (1.781477937 + k * (-1.821255978 + k * 1.330274429)))))
    return np.where(d > 0.0, 1.0 - r, r)


def ref_black_scholes(p):
    s, x, t, r, v = p["s"], p["x"], p["t"], p["r"], p["v"]
    sqrt_t = np.sqrt(t)
    d1 = (np.log(s / x) + (r + (0.5 * v) * v) * t) / (v * sqrt_t)
    d2 = d1 - v * sqrt_t
    c1, c2 = cnd_np(d1), cnd_np(d2)
    disc = x * np.exp(-r * t)
    call = s * c1 - disc * c2
    put = disc * (1.0 - c2) - s * (1.0 - c1)
    return (dict(call_out=call, put_out=put),
            dict(call_out=np.abs(s * c1) + np.abs(disc * c2), put_out=np.abs(disc * (1.0 - c2)) + np.abs(s * (1.0 - c1))))


REFERENCE = {k[4:]: f for k, f in globals().items() if k.startswith("ref_")}

# Relative tolerance per kernel, of max(|got|, |want|, scale) (see `check`). 1e-12 (vr-bench's
# own, bench/src/main.rs) where the kernel is +, -, *, / and sqrt, all correctly rounded on
# the GPU too (numba-cuda's default prec_div/prec_sqrt); the GPU peers differ from the
# reference there only by fused multiply-adds (NVVM and NVRTC contract a*b+c by default),
# each within an ulp of the terms it fuses, so the error is bounded by a few ulps of the
# terms' magnitude. 1e-10 where sin, cos, atan2, exp and log take part: CUDA's libdevice
# versions are within 1-2 ulps but not NumPy's/glibc's, and d1, d2 in black_scholes and temp in
# arc_distance carry that through further arithmetic.
RTOL = {"arc_distance": 1e-10, "black_scholes": 1e-10}
# julia_set's escape counts are integers, compared exactly, except that with FMA contraction
# (numba-cuda's default) an orbit rounded differently may escape an iteration earlier or
# later near the set's boundary: up to this fraction of points may then differ (the number
# that did is printed). Without contraction (--no-fma, the simulator) they must all agree.
JULIA_FMA_FRACTION = 0.01


def check(name, got, want, scale, fma):
    """None if `got` agrees with the reference `want`, else why not; and the largest
    relative difference seen (of max(|want|, scale)), for the table."""
    rtol = RTOL.get(name, 1e-12)
    worst = 0.0
    for key, w in want.items():
        if key not in got:
            return f"{key} missing", worst
        g = got[key]
        if isinstance(w, (int, np.integer)) or (isinstance(w, np.ndarray) and w.dtype.kind in "iu"):
            g, w = np.asarray(g), np.asarray(w)
            differ = int(np.count_nonzero(g != w))
            allowed = int(JULIA_FMA_FRACTION * w.size) if (fma and name == "julia_set") else 0
            worst = max(worst, differ / max(w.size, 1))
            if differ > allowed:
                return f"{key}: {differ} of {w.size} values differ (allowed {allowed})", worst
            continue
        g = np.asarray(g, dtype=np.float64)
        if g.shape != w.shape:
            return f"{key}: shape {g.shape}, reference {w.shape}", worst
        s = scale.get(key, np.abs(w))
        mag = np.maximum(np.maximum(np.abs(g), np.abs(w)), s)
        err = np.abs(g - w)
        bad = ~((g == w) | (err <= rtol * mag))
        with np.errstate(divide="ignore", invalid="ignore"):
            rel = np.where(err == 0, 0.0, err / np.where(mag > 0, mag, 1.0))
        if rel.size:
            worst = max(worst, float(np.nanmax(rel)))
        if bad.any():
            at = np.unravel_index(int(np.argmax(bad)), bad.shape)
            where = ", ".join(str(int(i)) for i in at)
            return (f"{key}: {int(bad.sum())} of {bad.size} values beyond {rtol:g} relative; first at [{where}]: "
                    f"{float(g[at])!r} vs reference {float(w[at])!r}"), worst
    return None, worst


# ---------------------------------------------------------------------------------------------
# numba-cuda kernels: each parfor's iterations are the CUDA grid (one thread per iteration),
# the loops inside it run serially in the thread, as bench/kernels/*.vrir writes them.


@cuda.jit
def arc_distance_k(theta_1, phi_1, theta_2, phi_2, out):
    i = cuda.grid(1)
    if i < out.shape[0]:
        st = math.sin((theta_2[i] - theta_1[i]) / 2.0)
        sp = math.sin((phi_2[i] - phi_1[i]) / 2.0)
        temp = st * st + (math.cos(theta_1[i]) * math.cos(theta_2[i])) * (sp * sp)
        out[i] = 2.0 * math.atan2(math.sqrt(temp), math.sqrt(1.0 - temp))


@cuda.jit(device=True)
def julia_count(zr, zi, cr, ci, lim, cutoff):
    count = 0
    while zr * zr + zi * zi < lim * lim and count < cutoff:
        t = (zr * zr - zi * zi) + cr
        zi = (2.0 * zr) * zi + ci
        zr = t
        count += 1
    return count


@cuda.jit
def julia_set_k(cr, ci, bound, lim, cutoff, out):
    i = cuda.grid(1)
    n = out.shape[0]
    if i < n:
        step = (2.0 * bound) / float(n - 1)
        x = -bound + float(i) * step
        for j in range(n):
            y = -bound + float(j) * step
            out[i, j] = julia_count(x, y, cr, ci, lim, cutoff)


@cuda.jit
def julia_set_2d(cr, ci, bound, lim, cutoff, out):
    j, i = cuda.grid(2)  # x, the fastest thread index, on j, the array's fastest index
    n = out.shape[0]
    if i < n and j < n:
        step = (2.0 * bound) / float(n - 1)
        out[i, j] = julia_count(-bound + float(i) * step, -bound + float(j) * step, cr, ci, lim, cutoff)


@cuda.jit(device=True)
def growcut_cell(image, state, state_next, radius, i, j, h, w):
    """One cell of growcut: its next state, and how many times its defense changed."""
    sqrt_3 = math.sqrt(3.0)
    winning = state[i, j, 0]
    defense = state[i, j, 1]
    c = 0
    for jj in range(max(j - radius, 0), min(j + radius + 1, w)):
        for ii in range(max(i - radius, 0), min(i + radius + 1, h)):
            if ii == i and jj == j:
                continue
            s = 0.0
            for k in range(3):
                d = image[i, j, k] - image[ii, jj, k]
                s = s + d * d
            attack = (1.0 - math.sqrt(s) / sqrt_3) * state[ii, jj, 1]
            if attack > defense:
                defense = attack
                winning = state[ii, jj, 0]
                c += 1
    state_next[i, j, 0] = winning
    state_next[i, j, 1] = defense
    return c


@cuda.jit
def growcut_k(image, state, state_next, radius, changes):
    j = cuda.grid(1)
    h, w = image.shape[0], image.shape[1]
    if j < w:
        for i in range(h):
            c = growcut_cell(image, state, state_next, radius, i, j, h, w)
            cuda.atomic.add(changes, 0, c)  # one atomic add per cell, as the VRIR does


@cuda.jit
def growcut_2d(image, state, state_next, radius, changes):
    j, i = cuda.grid(2)
    h, w = image.shape[0], image.shape[1]
    if i < h and j < w:
        c = growcut_cell(image, state, state_next, radius, i, j, h, w)
        cuda.atomic.add(changes, 0, c)


@cuda.jit
def rosen_der_k(x, der):
    # iterations 1..n-2 are the parfor; the two boundary assignments after it are done by
    # the threads of i = 0 and i = n - 1 (one launch, as a numba-cuda user would write it)
    i = cuda.grid(1)
    n = x.shape[0]
    if i == 0:
        der[0] = (-400.0 * x[0]) * (x[1] - x[0] * x[0]) - 2.0 * (1.0 - x[0])
    elif i == n - 1:
        der[n - 1] = 200.0 * (x[n - 1] - x[n - 2] * x[n - 2])
    elif i < n - 1:
        xm = x[i - 1]
        xi = x[i]
        xp = x[i + 1]
        der[i] = 200.0 * (xi - xm * xm) - (400.0 * (xp - xi * xi)) * xi - 2.0 * (1.0 - xi)


@cuda.jit
def stencil5_k(a, b):
    i = cuda.grid(1) + 1
    m, n = a.shape[0], a.shape[1]
    if i < m - 1:
        for j in range(1, n - 1):
            b[i, j] = 0.2 * ((((a[i, j] + a[i - 1, j]) + a[i + 1, j]) + a[i, j - 1]) + a[i, j + 1])


@cuda.jit
def stencil5_2d(a, b):
    j, i = cuda.grid(2)
    i += 1
    j += 1
    m, n = a.shape[0], a.shape[1]
    if i < m - 1 and j < n - 1:
        b[i, j] = 0.2 * ((((a[i, j] + a[i - 1, j]) + a[i + 1, j]) + a[i, j - 1]) + a[i, j + 1])


@cuda.jit
def matmul_loops_k(a, b, c):
    i = cuda.grid(1)
    m, p, n = a.shape[0], a.shape[1], b.shape[1]
    if i < m:
        for j in range(n):
            s = 0.0
            for k in range(p):
                s = s + a[i, k] * b[k, j]
            c[i, j] = s


@cuda.jit
def matmul_loops_2d(a, b, c):
    j, i = cuda.grid(2)
    m, p, n = a.shape[0], a.shape[1], b.shape[1]
    if i < m and j < n:
        s = 0.0
        for k in range(p):
            s = s + a[i, k] * b[k, j]
        c[i, j] = s


@cuda.jit
def nbody1d_acc_k(x, m, acc, eps):
    i = cuda.grid(1)
    n = x.shape[0]
    if i < n:
        s = 0.0
        for j in range(n):
            d = x[j] - x[i]
            r2 = d * d + eps
            s = s + (m[j] * d) / (r2 * math.sqrt(r2))
        acc[i] = s


@cuda.jit
def nbody1d_step_k(x, v, acc, dt):
    # the VRIR's second loop (serial, after the parfor): independent per i, so a second
    # launch, after the first has written every acc[i]
    i = cuda.grid(1)
    if i < x.shape[0]:
        v[i] = v[i] + acc[i] * dt
        x[i] = x[i] + v[i] * dt


@cuda.jit(device=True)
def cnd(d):
    k = 1.0 / (1.0 + 0.2316419 * abs(d))
    r = (0.3989422804014327 * math.exp((-0.5 * d) * d)) * (
        k * (0.31938153 + k * (-0.356563782 + k * (1.781477937 + k * (-1.821255978 + k * 1.330274429)))))
    if d > 0.0:
        r = 1.0 - r
    return r


@cuda.jit
def black_scholes_k(s, x, t, r, v, call_out, put_out):
    i = cuda.grid(1)
    if i < s.shape[0]:
        si = s[i]
        xi = x[i]
        ti = t[i]
        sqrt_t = math.sqrt(ti)
        d1 = (math.log(si / xi) + (r + (0.5 * v) * v) * ti) / (v * sqrt_t)
        d2 = d1 - v * sqrt_t
        c1 = cnd(d1)
        c2 = cnd(d2)
        disc = xi * math.exp(-r * ti)
        call_out[i] = si * c1 - disc * c2
        put_out[i] = disc * (1.0 - c2) - si * (1.0 - c1)


TPB = 128          # threads per block of the 1-D launches
TPB2 = (16, 16)    # of the 2-D ones


def blocks(n):
    return (max(n, 1) + TPB - 1) // TPB


def blocks2(rows, cols):
    return ((max(cols, 1) + TPB2[0] - 1) // TPB2[0], (max(rows, 1) + TPB2[1] - 1) // TPB2[1])


KERNEL_NAMES = ["arc_distance_k", "julia_set_k", "julia_set_2d", "growcut_k", "growcut_2d", "rosen_der_k", "stencil5_k",
                "stencil5_2d", "matmul_loops_k", "matmul_loops_2d", "nbody1d_acc_k", "nbody1d_step_k", "black_scholes_k"]


class NumbaPeer:
    """How one numba-cuda variant moves and launches a kernel's arrays.

    `up`: the arrays the kernel reads (and in/out arrays whose unwritten parts are part of the
    result: stencil5's border), copied to the device; `fresh`: outputs it writes entirely,
    allocated on the device; `down`: the results copied back; `launch(kernels, dev, p)`."""

    def __init__(self, up, fresh, down, launch, extra=None):
        self.up, self.fresh, self.down, self.launch, self.extra = up, fresh, down, launch, extra
        # the dispatchers `launch` uses, by name (for the PTX count of fused multiply-adds)
        self.names = [k for k in KERNEL_NAMES if k in launch.__code__.co_consts or k in _closure_consts(launch)]

    def to_device(self, p):
        dev = {k: cuda.to_device(p[k]) for k in self.up}
        dev.update({k: cuda.device_array(p[k].shape, p[k].dtype) for k in self.fresh})
        if self.extra:
            dev.update(self.extra())
        return dev

    def to_host(self, dev):
        return {k: dev[k].copy_to_host() for k in self.down}


def _closure_consts(f):
    cells = [c.cell_contents for c in (f.__closure__ or ())]
    return [c for c in cells if isinstance(c, str)]


def fma_count(kernels, names):
    """fma.rn.f64 instructions in the PTX of the dispatchers `names` (their compiled
    signatures): whether NVVM contracted a*b+c, seen in the code rather than assumed."""
    if SIMULATOR:
        return "n/a (simulator)"
    try:
        total = 0
        for name in names:
            for ptx in kernels[name].inspect_asm().values():
                total += ptx.count("fma.rn.f64")
        return str(total)
    except Exception as e:  # e.g. a numba-cuda whose inspect_asm differs: said, not fatal
        return f"n/a ({type(e).__name__})"


def _growcut_counter():
    return {"changes": cuda.to_device(np.zeros(1, np.int64))}


def _growcut_launch(kern, two_d):
    def launch(k, d, p):
        h, w = p["image"].shape[:2]
        if two_d:
            k[kern][blocks2(h, w), TPB2](d["image"], d["state"], d["state_next"], p["radius"], d["changes"])
        else:
            k[kern][blocks(w), TPB](d["image"], d["state"], d["state_next"], p["radius"], d["changes"])
    return launch


NUMBA = {
    "arc_distance": {"": NumbaPeer(["theta_1", "phi_1", "theta_2", "phi_2"], ["out"], ["out"],
        lambda k, d, p: k["arc_distance_k"][blocks(len(p["out"])), TPB](d["theta_1"], d["phi_1"], d["theta_2"], d["phi_2"], d["out"]))},
    "julia_set": {
        "": NumbaPeer([], ["out"], ["out"], lambda k, d, p: k["julia_set_k"][blocks(p["out"].shape[0]), TPB](
            p["cr"], p["ci"], p["bound"], p["lim"], p["cutoff"], d["out"])),
        "grid2d": NumbaPeer([], ["out"], ["out"], lambda k, d, p: k["julia_set_2d"][blocks2(*p["out"].shape), TPB2](
            p["cr"], p["ci"], p["bound"], p["lim"], p["cutoff"], d["out"]))},
    "growcut": {
        "": NumbaPeer(["image", "state"], ["state_next"], ["state_next", "changes"], _growcut_launch("growcut_k", False), _growcut_counter),
        "grid2d": NumbaPeer(["image", "state"], ["state_next"], ["state_next", "changes"], _growcut_launch("growcut_2d", True), _growcut_counter)},
    "rosen_der": {"": NumbaPeer(["x"], ["der"], ["der"], lambda k, d, p: k["rosen_der_k"][blocks(len(p["x"])), TPB](d["x"], d["der"]))},
    "stencil5": {
        "": NumbaPeer(["a", "b"], [], ["b"], lambda k, d, p: k["stencil5_k"][blocks(p["a"].shape[0] - 2), TPB](d["a"], d["b"])),
        "grid2d": NumbaPeer(["a", "b"], [], ["b"], lambda k, d, p: k["stencil5_2d"][blocks2(p["a"].shape[0] - 2, p["a"].shape[1] - 2), TPB2](d["a"], d["b"]))},
    "matmul_loops": {
        "": NumbaPeer(["a", "b"], ["c"], ["c"], lambda k, d, p: k["matmul_loops_k"][blocks(p["a"].shape[0]), TPB](d["a"], d["b"], d["c"])),
        "grid2d": NumbaPeer(["a", "b"], ["c"], ["c"], lambda k, d, p: k["matmul_loops_2d"][blocks2(p["a"].shape[0], p["b"].shape[1]), TPB2](d["a"], d["b"], d["c"]))},
    "nbody1d": {"": NumbaPeer(["x", "v", "m"], ["acc"], ["x", "v", "acc"], lambda k, d, p: (
        k["nbody1d_acc_k"][blocks(len(p["x"])), TPB](d["x"], d["m"], d["acc"], p["eps"]),
        k["nbody1d_step_k"][blocks(len(p["x"])), TPB](d["x"], d["v"], d["acc"], p["dt"])))},
    "black_scholes": {"": NumbaPeer(["s", "x", "t"], ["call_out", "put_out"], ["call_out", "put_out"],
        lambda k, d, p: k["black_scholes_k"][blocks(len(p["s"])), TPB](d["s"], d["x"], d["t"], p["r"], p["v"], d["call_out"], d["put_out"]))},
}
DEFAULT_KERNELS = {name: globals()[name] for name in KERNEL_NAMES}

# --no-fma: a second set of dispatchers of the same Python functions whose NVVM compilation
# gets -fma=0 (no contraction of a*b+c, as our OpenCL kernels' FP_CONTRACT OFF and the C
# references' -ffp-contract=off), through numba-cuda's internal nvvm.compile_ir, which this
# wraps: numba-cuda's decorators offer no such option.
_FMA = {"off": False}


def install_fma_switch():
    from numba.cuda.cudadrv import nvvm
    original = nvvm.compile_ir

    def compile_ir(llvmir, **options):
        if _FMA["off"]:
            options["fma"] = False
        return original(llvmir, **options)

    nvvm.compile_ir = compile_ir


# ---------------------------------------------------------------------------------------------
# CuPy: the kernels that read naturally as whole-array expressions (`xp` is cupy; with numpy
# the same functions compute on the CPU). Each takes the device arrays and scalars and
# returns the result arrays.


def cupy_arc_distance(xp, d):
    st = xp.sin((d["theta_2"] - d["theta_1"]) / 2.0)
    sp = xp.sin((d["phi_2"] - d["phi_1"]) / 2.0)
    temp = st * st + (xp.cos(d["theta_1"]) * xp.cos(d["theta_2"])) * (sp * sp)
    return {"out": 2.0 * xp.arctan2(xp.sqrt(temp), xp.sqrt(1.0 - temp))}


def cupy_rosen_der(xp, d):
    x = d["x"]
    der = xp.empty_like(x)
    xm, xi, xp1 = x[:-2], x[1:-1], x[2:]
    der[1:-1] = 200.0 * (xi - xm * xm) - (400.0 * (xp1 - xi * xi)) * xi - 2.0 * (1.0 - xi)
    der[0:1] = (-400.0 * x[0:1]) * (x[1:2] - x[0:1] * x[0:1]) - 2.0 * (1.0 - x[0:1])
    der[-1:] = 200.0 * (x[-1:] - x[-2:-1] * x[-2:-1])
    return {"der": der}


def cupy_stencil5(xp, d):
    a, b = d["a"], d["b"]  # b in place: its border stays as it came
    b[1:-1, 1:-1] = 0.2 * ((((a[1:-1, 1:-1] + a[:-2, 1:-1]) + a[2:, 1:-1]) + a[1:-1, :-2]) + a[1:-1, 2:])
    return {"b": b}


def cupy_matmul_loops(xp, d):
    return {"c": d["a"] @ d["b"]}


def cupy_nbody1d(xp, d):
    x, v, m = d["x"], d["v"], d["m"]
    dist = x[None, :] - x[:, None]  # dist[i, j] = x[j] - x[i]
    r2 = dist * dist + d["eps"]
    acc = ((m[None, :] * dist) / (r2 * xp.sqrt(r2))).sum(axis=1)
    v2 = v + acc * d["dt"]
    return {"x": x + v2 * d["dt"], "v": v2, "acc": acc}


def cupy_black_scholes(xp, d):
    def cndx(z):
        k = 1.0 / (1.0 + 0.2316419 * xp.abs(z))
        r = (0.3989422804014327 * xp.exp((-0.5 * z) * z)) * (
            k * (0.31938153 + k * (-0.356563782 + k * (1.781477937 + k * (-1.821255978 + k * 1.330274429)))))
        return xp.where(z > 0.0, 1.0 - r, r)
    s, x, t, r, v = d["s"], d["x"], d["t"], d["r"], d["v"]
    sqrt_t = xp.sqrt(t)
    d1 = (xp.log(s / x) + (r + (0.5 * v) * v) * t) / (v * sqrt_t)
    d2 = d1 - v * sqrt_t
    c1, c2 = cndx(d1), cndx(d2)
    disc = x * xp.exp(-r * t)
    return {"call_out": s * c1 - disc * c2, "put_out": disc * (1.0 - c2) - s * (1.0 - c1)}


# kernel -> (function, the arrays it reads from the host)
CUPY = {
    "arc_distance": (cupy_arc_distance, ["theta_1", "phi_1", "theta_2", "phi_2"]),
    "rosen_der": (cupy_rosen_der, ["x"]),
    "stencil5": (cupy_stencil5, ["a", "b"]),
    "matmul_loops": (cupy_matmul_loops, ["a", "b"]),
    "nbody1d": (cupy_nbody1d, ["x", "v", "m"]),
    "black_scholes": (cupy_black_scholes, ["s", "x", "t"]),
}

# ---------------------------------------------------------------------------------------------
# The C references (bench/c), built as vr-bench builds them (bench/src/c_ref.rs's flags,
# without OpenMP), to check the NumPy references and the ported inputs.

C_FLAGS = ["-O2", "-march=native", "-ffp-contract=off", "-shared", "-fPIC"]


def run_c(name, p, build_dir):
    src = os.path.join(BENCH, "c", f"{name}.c")
    so = os.path.join(build_dir, f"lib{name}.so")
    subprocess.run(["gcc", *C_FLAGS, "-o", so, src, "-lm"], check=True, capture_output=True)
    lib = ctypes.CDLL(so)
    q = {k: (v.copy() if isinstance(v, np.ndarray) else v) for k, v in p.items()}
    P = ctypes.POINTER(ctypes.c_double)
    I64 = ctypes.c_int64
    D = ctypes.c_double

    def ptr(a):
        assert a.flags.c_contiguous
        return a.ctypes.data_as(P)

    def iptr(a):
        return a.ctypes.data_as(ctypes.POINTER(ctypes.c_int64))

    f = getattr(lib, name)
    f.restype = None
    if name == "arc_distance":
        f(ptr(q["theta_1"]), ptr(q["phi_1"]), ptr(q["theta_2"]), ptr(q["phi_2"]), ptr(q["out"]), I64(len(q["out"])))
        return {"out": q["out"]}
    if name == "julia_set":
        f(D(q["cr"]), D(q["ci"]), D(q["bound"]), D(q["lim"]), I64(q["cutoff"]), iptr(q["out"]), I64(q["out"].shape[0]))
        return {"out": q["out"]}
    if name == "growcut":
        f.restype = ctypes.c_int64
        h, w = q["image"].shape[:2]
        changes = f(ptr(q["image"]), ptr(q["state"]), ptr(q["state_next"]), I64(q["radius"]), I64(h), I64(w))
        return {"state_next": q["state_next"], "changes": changes}
    if name == "rosen_der":
        f(ptr(q["x"]), ptr(q["der"]), I64(len(q["x"])))
        return {"der": q["der"]}
    if name == "stencil5":
        f(ptr(q["a"]), ptr(q["b"]), I64(q["a"].shape[0]), I64(q["a"].shape[1]))
        return {"b": q["b"]}
    if name == "matmul_loops":
        f(ptr(q["a"]), ptr(q["b"]), ptr(q["c"]), I64(q["a"].shape[0]), I64(q["a"].shape[1]), I64(q["b"].shape[1]))
        return {"c": q["c"]}
    if name == "nbody1d":
        f(ptr(q["x"]), ptr(q["v"]), ptr(q["m"]), ptr(q["acc"]), D(q["dt"]), D(q["eps"]), I64(len(q["x"])))
        return {"x": q["x"], "v": q["v"], "acc": q["acc"]}
    if name == "black_scholes":
        f(ptr(q["s"]), ptr(q["x"]), ptr(q["t"]), D(q["r"]), D(q["v"]), ptr(q["call_out"]), ptr(q["put_out"]), I64(len(q["s"])))
        return {"call_out": q["call_out"], "put_out": q["put_out"]}
    raise ValueError(name)


# ---------------------------------------------------------------------------------------------
# Timing and records.


def timed(run, sync):
    t0 = time.perf_counter()
    out = run()
    sync()
    return time.perf_counter() - t0, out


def sample(run, sync, reps):
    return [timed(run, sync)[0] for _ in range(reps)]


def sample_events(run, new_event, elapsed_ms, reps):
    """The device's own time of `run`'s launches, in seconds: events recorded on the default
    stream before and after them (as vr-bench --gpu's gpu-kernels comes from OpenCL's
    profiling stamps, so that neither includes the host's launch latency). Empty under the
    simulator, whose events keep no time."""
    if SIMULATOR:
        return []
    times = []
    for _ in range(reps):
        start, end = new_event(), new_event()
        start.record()
        run()
        end.record()
        end.synchronize()
        times.append(elapsed_ms(start, end) / 1e3)
    return times


def median(xs):
    return sorted(xs)[len(xs) // 2]  # as bench/src/timing.rs: the upper median of an even count


def machine():
    """As bench/src/record.rs names the host ("CPU model, N cores"); under the simulator
    said too, so that no chart takes its times for a GPU's (bench/report/report.R)."""
    model = sys.platform
    try:
        with open("/proc/cpuinfo") as f:
            for line in f:
                if line.startswith("model name"):
                    model = line.split(":", 1)[1].strip()
                    break
    except OSError:
        pass
    return f"{model}, {os.cpu_count()} cores" + ("; CUDA simulator" if SIMULATOR else "")


def commit():
    c = os.environ.get("VR_BENCH_COMMIT", "")
    if c:
        return c
    try:
        out = subprocess.run(["git", "rev-parse", "--short", "HEAD"], capture_output=True, text=True, cwd=HERE)
        if out.returncode == 0 and out.stdout.strip():
            return out.stdout.strip()
    except OSError:
        pass
    return "unknown"


def csv_field(s):
    return '"' + s.replace('"', '""') + '"' if ("," in s or '"' in s) else s


def device_name():
    if SIMULATOR:
        return "numba's CUDA simulator (no GPU; times mean nothing)"
    try:
        dev = cuda.get_current_device()
        name = dev.name.decode() if isinstance(dev.name, bytes) else str(dev.name)
        return f"{name} (CUDA, compute capability {dev.compute_capability[0]}.{dev.compute_capability[1]})"
    except Exception as e:  # reported, not fatal: the launches will say what is wrong
        return f"unknown ({e})"


def versions():
    import numba
    parts = [f"numba {numba.__version__}" + ("" if "numba_cuda" in cuda.__file__ else f" (numba.cuda from {os.path.dirname(cuda.__file__)}, not numba-cuda)")]
    try:
        from importlib.metadata import version
        parts.append(f"numba-cuda {version('numba-cuda')}")
    except Exception:
        pass
    parts.append(f"NumPy {np.__version__}")
    parts.append(f"CuPy {cp.__version__}" if cp is not None else "CuPy absent")
    return ", ".join(parts)


# ---------------------------------------------------------------------------------------------


def measure_numba(peer, kernels, p, reps):
    """First call (JIT compile + launch) on fresh device inputs, then `reps` kernel-only runs
    on device-resident inputs and `reps` total runs (upload, launch, download). Returns the
    first call's results, the last total run's results and the times."""
    sync = cuda.synchronize
    dev = peer.to_device(p)
    first, _ = timed(lambda: peer.launch(kernels, dev, p), sync)
    first_got = peer.to_host(dev)
    dev2 = peer.to_device(p)
    kern = sample(lambda: peer.launch(kernels, dev2, p), sync, reps)
    devt = sample_events(lambda: peer.launch(kernels, dev2, p), cuda.event, lambda a, b: a.elapsed_time(b), reps)
    last = {}

    def total():
        d = peer.to_device(p)
        peer.launch(kernels, d, p)
        last["got"] = peer.to_host(d)
    tot = sample(total, sync, reps)
    for got in (first_got, last["got"]):
        if "changes" in got:
            got["changes"] = int(got["changes"][0])
    return first_got, last["got"], first, kern, devt, tot


def measure_cupy(spec, p, reps):
    """As `measure_numba`, for a CuPy expression function."""
    fn, up = spec
    sync = cp.cuda.Stream.null.synchronize
    scalars = {k: v for k, v in p.items() if not isinstance(v, np.ndarray)}

    def upload():
        d = {k: cp.asarray(p[k]) for k in up}
        d.update(scalars)
        return d
    dev = upload()
    first, res = timed(lambda: fn(cp, dev), sync)
    first_got = {k: cp.asnumpy(v) for k, v in res.items()}
    dev2 = upload()
    kern = sample(lambda: fn(cp, dev2), sync, reps)
    devt = sample_events(lambda: fn(cp, dev2), cp.cuda.Event, cp.cuda.get_elapsed_time, reps)
    last = {}

    def total():
        last["got"] = {k: cp.asnumpy(v) for k, v in fn(cp, upload()).items()}
    tot = sample(total, sync, reps)
    return first_got, last["got"], first, kern, devt, tot


def verify_and_record(name, n, prefix, measured, want, scale, fma, record):
    """Both the first call's and the last total run's results checked; the times recorded only
    when both agree. (first, kernel median, total median, worst difference) or (None, why)."""
    first_got, total_got, first, kern, devt, tot = measured
    worst = 0.0
    for got in (first_got, total_got):
        why, w = check(name, got, want, scale, fma)
        worst = max(worst, w)
        if why is not None:
            return (None, why)
    record(name, n, f"{prefix}-first-call", [first])
    record(name, n, f"{prefix}-kernel", kern)
    if devt:
        record(name, n, f"{prefix}-device", devt)
    record(name, n, f"{prefix}-total", tot)
    return (first, median(kern), median(tot), worst, median(devt) if devt else None)


def note_outcome(line, prefix, outcome, name, failures):
    if outcome[0] is None:
        failures.append(f"{name} {prefix}: {outcome[1]}")
        print(f"  FAILED {prefix}: {outcome[1]}", file=sys.stderr)
        line[prefix] = "FAILED"
    else:
        line[prefix] = outcome


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--quick", action="store_true", help="tiny sizes (kernels.rs's quick_size): for checking, not timing")
    ap.add_argument("--size", type=int, default=0, help="one size for every selected kernel instead of kernels.rs's")
    ap.add_argument("--reps", type=int, default=7, help="timed runs per configuration (default 7)")
    ap.add_argument("--kernels", default="", help="comma-separated subset of: " + ", ".join(SIZES))
    ap.add_argument("--out", default=None, help="folder for peers-gpu.csv (default: $VR_BENCH_OUT, else target/bench-runs/peers-<date>)")
    ap.add_argument("--no-fma", action="store_true", help="also time numba-cuda kernels compiled without FMA contraction (configs numba-cuda-nofma-*)")
    ap.add_argument("--no-c-check", action="store_true", help="do not build and compare the C references")
    args = ap.parse_args()

    names = [k for k in args.kernels.split(",") if k] or list(SIZES)
    unknown = [k for k in names if k not in SIZES]
    if unknown:
        ap.error(f"unknown kernel(s) {', '.join(unknown)}; known: {', '.join(SIZES)}")
    reps = max(args.reps, 1)
    date = time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime())
    out_dir = args.out or os.environ.get("VR_BENCH_OUT") or os.path.join("target", "bench-runs", "peers-" + date.replace(":", ""))
    mach, com = machine(), commit()

    variants = [("numba-cuda", "", DEFAULT_KERNELS, True)]  # (config prefix, NUMBA key, dispatchers, fma)
    if args.no_fma:
        if SIMULATOR:
            print("note: --no-fma has no effect under the simulator (no NVVM); its rows are the simulator's", file=sys.stderr)
        else:
            install_fma_switch()
        nofma = {name: cuda.jit(k.py_func) for name, k in DEFAULT_KERNELS.items()}
        variants.append(("numba-cuda-nofma", "", nofma, False))
    variants.append(("numba-cuda-grid2d", "grid2d", DEFAULT_KERNELS, True))

    if cp is None:
        print(f"note: CuPy not importable ({CUPY_MISSING}): the cupy-* configurations are skipped", file=sys.stderr)
    c_dir = None
    if not args.no_c_check:
        if shutil.which("gcc"):
            c_dir = tempfile.mkdtemp(prefix="vr-peers-")
        else:
            print("note: no gcc: the NumPy references are not compared with the C references", file=sys.stderr)

    rows, table, failures = [], [], []

    def record(kernel, size, config, times):
        rows.append(f"{kernel},{size},{config},1,{median(times):.9f},{min(times):.9f},{max(times):.9f},{len(times)}")

    try:
        for name in names:
            n = args.size or SIZES[name][1 if args.quick else 0]
            print(f"{name} (n = {n}) ...", file=sys.stderr, flush=True)
            p = inputs(name, n)
            want, scale = REFERENCE[name](p)
            line = {"kernel": name, "size": n}
            if c_dir:
                # both sides without contraction: to the bit except where NumPy's and glibc's
                # sin/cos/atan2/exp/log differ (RTOL)
                why, worst = check(name, run_c(name, p, c_dir), want, scale, fma=False)
                line["C"] = "agrees" if why is None else "DIFFERS"
                if why:
                    failures.append(f"{name}: the NumPy reference differs from C: {why}")
                    print(f"  FAILED: NumPy reference vs C: {why}", file=sys.stderr)
            for prefix, key, kernels, fma in variants:
                peer = NUMBA[name].get(key)
                if peer is None:
                    continue
                _FMA["off"] = not fma
                try:
                    got = measure_numba(peer, kernels, p, reps)
                    # FMA allowances only where NVVM may have contracted (see JULIA_FMA_FRACTION)
                    outcome = verify_and_record(name, n, prefix, got, want, scale, fma and not SIMULATOR, record)
                    if outcome[0] is not None:
                        outcome = outcome + (fma_count(kernels, peer.names),)
                except Exception as e:  # a launch or transfer that failed: said, and the run goes on
                    outcome = (None, f"{type(e).__name__}: {e}")
                _FMA["off"] = False
                note_outcome(line, prefix, outcome, name, failures)
            if name in CUPY and cp is not None:
                try:
                    got = measure_cupy(CUPY[name], p, reps)
                    outcome = verify_and_record(name, n, "cupy", got, want, scale, True, record)
                    if outcome[0] is not None:
                        outcome = outcome + ("n/a",)
                except Exception as e:
                    outcome = (None, f"{type(e).__name__}: {e}")
                note_outcome(line, "cupy", outcome, name, failures)
            table.append(line)
    finally:
        if c_dir:
            shutil.rmtree(c_dir, ignore_errors=True)

    os.makedirs(out_dir, exist_ok=True)
    path = os.path.join(out_dir, "peers-gpu.csv")
    with open(path, "w") as f:
        f.write(HEADER + "\n")
        for r in rows:
            f.write(f"{r},{csv_field(mach)},{date},{com}\n")

    if args.quick:
        print("(--quick: tiny sizes; the times mean nothing)")
    print(f"peers-gpu: {mach} ({date}, {com})")
    print(f"gpu: {device_name()}; {versions()}")
    print("| kernel | size | config | kernel s (wall, median) | device s (events, median) | total s (median) | first call s | max diff / term magnitude (julia: share of points differing) | fma.rn.f64 in PTX | C reference |")
    print("| --- | ---: | --- | ---: | ---: | ---: | ---: | ---: | ---: | --- |")
    for line in table:
        for c in [prefix for prefix, _, _, _ in variants] + ["cupy"]:
            v = line.get(c)
            if v is None:
                continue
            cells = [line["kernel"], str(line["size"]), c]
            if v == "FAILED":
                cells += ["FAILED"] * 6
            else:
                first, kern, tot, worst, devt, fmas = v
                cells += [f"{kern:.6f}", "n/a" if devt is None else f"{devt:.6f}", f"{tot:.6f}", f"{first:.4f}", f"{worst:.1e}", fmas]
            print("| " + " | ".join(cells + [line.get("C", "not run")]) + " |")
    if cp is None:
        print(f"cupy: skipped, not importable ({CUPY_MISSING})")
    print(f"peers-gpu: {len(rows)} rows in {path}", file=sys.stderr)
    if failures:
        print("FAILED verification (no timings recorded for these):", file=sys.stderr)
        for f_ in failures:
            print("  " + f_, file=sys.stderr)
        sys.exit(1)


if __name__ == "__main__":
    main()
