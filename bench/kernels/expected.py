"""Expected values of the `; run:` lines in bench/kernels, computed with NumPy.
Run `python3 bench/kernels/expected.py` and paste each printed line into its kernel."""
import json
import numpy as np

def js(a):
    return json.dumps(np.asarray(a).tolist() if isinstance(a, np.ndarray) else a)

def args(*xs):
    return ", ".join(js(x) for x in xs)

# arc_distance
t1 = np.array([0.1, 0.5, 1.0]); p1 = np.array([0.2, -0.3, 2.0])
t2 = np.array([0.4, 0.1, -1.0]); p2 = np.array([0.9, 0.3, 0.5])
temp = np.sin((t2 - t1) / 2) ** 2 + np.cos(t1) * np.cos(t2) * np.sin((p2 - p1) / 2) ** 2
print("arc_distance: ; run: check(%s) ~= %s" % (args(t1, p1, t2, p2, np.zeros(3)), js(2 * np.arctan2(np.sqrt(temp), np.sqrt(1 - temp)))))

# julia_set
def kernel(zr, zi, cr, ci, lim, cutoff):
    count = 0
    while (zr * zr + zi * zi) < lim * lim and count < cutoff:
        zr, zi = zr * zr - zi * zi + cr, 2 * zr * zi + ci
        count += 1
    return count
n = 4; grid = np.linspace(-1.5, 1.5, n)
out = np.array([[kernel(x, y, -0.7, 0.27, 10.0, 50) for y in grid] for x in grid])
print("julia_set: ; run: check(-0.7, 0.27, 1.5, 10.0, 50, %s) == %s" % (js(np.zeros((n, n), int)), js(out)))

# growcut
rng = np.random.default_rng(1)
h, w = 3, 4
image = np.round(rng.random((h, w, 3)), 2)
state = np.zeros((h, w, 2)); state[0, 0] = [1.0, 1.0]; state[2, 3] = [2.0, 1.0]
nxt = np.zeros((h, w, 2)); changes = 0
for j in range(w):
    for i in range(h):
        win, dfn = state[i, j, 0], state[i, j, 1]
        for jj in range(max(j - 1, 0), min(j + 2, w)):
            for ii in range(max(i - 1, 0), min(i + 2, h)):
                if ii == i and jj == j:
                    continue
                s = 0.0
                for k in range(3):
                    d = image[i, j, k] - image[ii, jj, k]; s += d * d
                att = (1.0 - np.sqrt(s) / np.sqrt(3.0)) * state[ii, jj, 1]
                if att > dfn:
                    dfn, win = att, state[ii, jj, 0]; changes += 1
        nxt[i, j] = [win, dfn]
print("growcut: ; run: check(%s, 1) ~= %d, %s" % (args(image, state, np.zeros((h, w, 2))), changes, js(nxt)))

# rosen_der
x = np.array([0.5, 1.5, -0.25, 2.0, 1.0])
der = np.zeros_like(x); xm, xi, xp = x[:-2], x[1:-1], x[2:]
der[1:-1] = 200 * (xi - xm ** 2) - 400 * (xp - xi ** 2) * xi - 2 * (1 - xi)
der[0] = -400 * x[0] * (x[1] - x[0] ** 2) - 2 * (1 - x[0]); der[-1] = 200 * (x[-1] - x[-2] ** 2)
print("rosen_der: ; run: check(%s) ~= %s" % (args(x, np.zeros(5)), js(der)))

# stencil5
a = np.arange(20.0).reshape(4, 5) ** 2 / 7
b = np.full_like(a, -1.0)
b[1:-1, 1:-1] = 0.2 * (a[1:-1, 1:-1] + a[:-2, 1:-1] + a[2:, 1:-1] + a[1:-1, :-2] + a[1:-1, 2:])
print("stencil5: ; run: check(%s) ~= %s" % (args(a, np.full_like(a, -1.0)), js(b)))

# matmul_loops
a = np.arange(6.0).reshape(2, 3) / 4 - 0.5; bm = np.arange(12.0).reshape(3, 4) / 3 + 1
print("matmul_loops: ; run: check(%s) ~= %s" % (args(a, bm, np.zeros((2, 4))), js(a @ bm)))

# nbody1d
x = np.array([0.0, 1.0, 2.5, -1.0]); v = np.array([0.1, 0.0, -0.2, 0.3]); m = np.array([1.0, 2.0, 0.5, 1.5])
dt, eps = 0.01, 1e-3
d = x[None, :] - x[:, None]; r2 = d * d + eps
acc = (m[None, :] * d / (r2 * np.sqrt(r2))).sum(axis=1)
v2 = v + acc * dt; x2 = x + v2 * dt
print("nbody1d: ; run: check(%s, %s, %s) ~= %s" % (args(x, v, m, np.zeros(4)), dt, eps, args(x2, v2, acc)))

# black_scholes
def cnd(d):
    k = 1.0 / (1.0 + 0.2316419 * np.abs(d))
    r = 0.3989422804014327 * np.exp(-0.5 * d * d) * (k * (0.31938153 + k * (-0.356563782 + k * (1.781477937 + k * (-1.821255978 + k * 1.330274429)))))
    return np.where(d > 0, 1.0 - r, r)
s = np.array([30.0, 50.0, 10.0]); xk = np.array([35.0, 40.0, 10.0]); t = np.array([0.5, 2.0, 1.0]); r, vol = 0.02, 0.3
d1 = (np.log(s / xk) + (r + 0.5 * vol * vol) * t) / (vol * np.sqrt(t)); d2 = d1 - vol * np.sqrt(t)
disc = xk * np.exp(-r * t)
call = s * cnd(d1) - disc * cnd(d2); put = disc * (1 - cnd(d2)) - s * (1 - cnd(d1))
print("black_scholes: ; run: check(%s, %s, %s, %s) ~= %s" % (args(s, xk, t), r, vol, args(np.zeros(3), np.zeros(3)), args(call, put)))
