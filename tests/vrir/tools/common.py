"""Shared helpers for the conformance-suite generators.

Expected values come from the host languages themselves: NumPy is imported here, and
Octave / R snippets are collected and run in one batch (`HostBatch`) so that a
generator can ask every case's expectation of the host it names.  Nothing here runs
or imports our own interpreter.
"""
import math
import os
import subprocess
import tempfile

import numpy as np

SUITE = os.path.normpath(os.path.join(os.path.dirname(__file__), ".."))


# ---------------------------------------------------------------- JSON values

def fmt_float(x, f32=False):
    x = float(np.float32(x)) if f32 else float(x)
    if math.isnan(x):
        return '"nan"'
    if math.isinf(x):
        return '"inf"' if x > 0 else '"-inf"'
    if f32:
        s = str(np.float32(x))
    else:
        s = repr(x)
    if "e" in s and "." not in s:
        mant, exp = s.split("e")
        s = mant + ".0e" + exp
    return s


def fmt_scalar(x, dtype):
    if dtype == "bool":
        return "true" if bool(x) else "false"
    if dtype in ("i32", "i64"):
        return str(int(x))
    if dtype in ("f32", "f64"):
        return fmt_float(x, dtype == "f32")
    if dtype in ("c64", "c128"):
        f32 = dtype == "c64"
        c = complex(x)
        return '{"re": %s, "im": %s}' % (fmt_float(c.real, f32), fmt_float(c.imag, f32))
    raise ValueError(dtype)


def fmt_value(v, dtype):
    """A scalar or an ndarray (nested lists, logical order) as a run-line JSON value."""
    a = np.asarray(v)
    if a.ndim == 0:
        return fmt_scalar(a.item(), dtype)
    if a.size == 0 and a.ndim >= 2:
        return '{"dtype": "%s", "shape": [%s], "data": []}' % (
            dtype, ", ".join(str(d) for d in a.shape))
    return _nest(a, dtype)


def _nest(a, dtype):
    if a.ndim == 1:
        return "[" + ", ".join(fmt_scalar(x, dtype) for x in a.tolist()) + "]"
    return "[" + ", ".join(_nest(sub, dtype) for sub in a) + "]"


# ---------------------------------------------------------------- host batches

class HostBatch:
    """Octave snippets run in one octave-cli process.  Each snippet must leave its
    result in variable `r`; `get(key)` returns it as an ndarray with Octave's shape."""

    def __init__(self):
        self.jobs = []
        self.results = {}

    def octave(self, key, script):
        self.jobs.append((key, script))
        return key

    def run(self):
        if not self.jobs:
            return
        parts = []
        for key, script in self.jobs:
            parts.append(
                "try\n%s\nprintf('@@%s\\n'); printf('%%d ', size(r)); printf('\\n');"
                " printf('%%.17g ', double(r(:))); printf('\\n');\n"
                "catch err\nprintf('@@%s\\nERROR %%s\\n\\n', err.message);\nend\n"
                % (script, key, key))
        with tempfile.NamedTemporaryFile("w", suffix=".m", delete=False) as f:
            f.write("\n".join(parts))
            path = f.name
        out = subprocess.run(["octave-cli", "--no-history", "--quiet", path],
                             capture_output=True, text=True, check=True).stdout
        os.unlink(path)
        lines = out.splitlines()
        i = 0
        while i < len(lines):
            if lines[i].startswith("@@"):
                key = lines[i][2:]
                if lines[i + 1].startswith("ERROR"):
                    self.results[key] = OctaveError(lines[i + 1][6:])
                    i += 3
                    continue
                shape = [int(t) for t in lines[i + 1].split()]
                data = [float(t) for t in lines[i + 2].split()]
                self.results[key] = np.array(data).reshape(shape, order="F")
                i += 3
            else:
                i += 1

    def get(self, key):
        return self.results[key]


class OctaveError(Exception):
    pass


def oct_matrix(a):
    """An Octave expression for ndarray `a` (logical index order preserved)."""
    a = np.asarray(a)
    if a.ndim == 1:
        a = a.reshape(1, -1)
    flat = " ".join(repr(float(x)) for x in a.flatten(order="F"))
    dims = ",".join(str(d) for d in a.shape)
    return "reshape([%s],%s)" % (flat, dims)


def rscript(expr):
    """Evaluate an R expression, return its printed values (cat, 17 digits)."""
    out = subprocess.run(["Rscript", "-e", "cat(format(%s, digits=17), sep='\\n')" % expr],
                         capture_output=True, text=True, check=True).stdout
    return out.split()


# ---------------------------------------------------------------- files

def write_case(folder, name, source, expected, runs, note=None):
    """Write tests/vrir/FOLDER/NAME.vrir: a comment header, the run lines, the module."""
    d = os.path.join(SUITE, folder)
    os.makedirs(d, exist_ok=True)
    lines = []
    if note:
        for l in note.strip().splitlines():
            lines.append("; " + l)
    lines.append("; expected: " + expected)
    for r in runs:
        lines.append("; " + r)
    text = "\n".join(lines) + "\n" + source.strip("\n") + "\n"
    with open(os.path.join(d, name + ".vrir"), "w") as f:
        f.write(text)
