"""A Python host of Velociraptor through ctypes: NumPy arrays go in without a copy (any
strides), result arrays are allocated as NumPy arrays by the host's alloc hook, errors
become exceptions. Usage: python3 example.py LIBVELOCIRAPTOR.so MODULE.vrir"""
import ctypes as C, sys
import numpy as np

lib = C.CDLL(sys.argv[1])
MAXD = 16
class Array(C.Structure):
    _fields_ = [("data", C.c_void_p), ("elem", C.c_int32), ("ndims", C.c_int32),
                ("dims", C.c_int64 * MAXD), ("strides", C.c_int64 * MAXD),
                ("layout", C.c_int32), ("flags", C.c_uint32), ("owner", C.c_void_p)]
class Scalar(C.Union):
    _fields_ = [("as_bool", C.c_uint8), ("as_i32", C.c_int32), ("as_i64", C.c_int64),
                ("as_f32", C.c_float), ("as_f64", C.c_double), ("as_c64", C.c_float * 2),
                ("as_c128", C.c_double * 2)]
class Value(C.Structure):
    _fields_ = [("kind", C.c_int32), ("elem", C.c_int32), ("scalar", Scalar), ("array", Array)]
class Type(C.Structure):
    _fields_ = [("kind", C.c_int32), ("elem", C.c_int32), ("ndims", C.c_int32), ("layout", C.c_int32)]
ALLOC = C.CFUNCTYPE(C.c_int32, C.c_void_p, C.POINTER(Array))
class Hooks(C.Structure):
    _fields_ = [("user_data", C.c_void_p), ("alloc_array", ALLOC), ("release_array", C.c_void_p),
                ("incref", C.c_void_p), ("decref", C.c_void_p), ("on_error", C.c_void_p),
                ("arg_convention", C.c_int32), ("random", C.c_void_p)]
I64, F64, SCALAR, ARRAY, ROW, COL, STRIDED, WRITEABLE = 2, 4, 0, 1, 0, 1, 2, 1
lib.vr_last_error_message.restype = C.c_char_p
assert lib.vr_abi_version() == 3, "this example is written for ABI 3"

def check(status):
    if status != 0:
        raise RuntimeError(lib.vr_last_error_message().decode())

live = {}  # results the library asked us to allocate, by owner id
@ALLOC
def alloc(_user, out):
    a = out.contents
    arr = np.zeros([a.dims[k] for k in range(a.ndims)], order="F" if a.layout == 1 else "C")
    live[id(arr)] = arr
    a.data, a.owner = arr.ctypes.data, id(arr)
    for k in range(a.ndims):
        a.strides[k] = arr.strides[k] // arr.itemsize
    return 0

def vtype(x):  # the VrType of a Python float or int, or of a NumPy float64 array
    if not isinstance(x, np.ndarray):
        return Type(SCALAR, F64 if isinstance(x, float) else I64, 0, 0)
    c, f = x.flags.c_contiguous, x.flags.f_contiguous
    return Type(ARRAY, F64, x.ndim, ROW if c else COL if f else STRIDED)

def value(x):
    v, t = Value(), vtype(x)
    if t.kind == SCALAR:
        v.kind, v.elem = SCALAR, t.elem
        setattr(v.scalar, "as_f64" if t.elem == F64 else "as_i64", x)
        return v
    v.kind, a = ARRAY, v.array
    a.data, a.elem, a.ndims, a.layout, a.flags = x.ctypes.data, F64, x.ndim, t.layout, WRITEABLE
    for k in range(x.ndim):
        a.dims[k], a.strides[k] = x.shape[k], x.strides[k] // x.itemsize
    return v

ctx, mod = C.c_void_p(), C.c_void_p()
keys, vals = (C.c_char_p * 1)(b"cache_dir"), (C.c_char_p * 1)(b"off")
check(lib.vr_context_create(keys, vals, 1, C.byref(ctx)))
hooks = Hooks(alloc_array=alloc, arg_convention=0)
check(lib.vr_context_set_hooks(ctx, C.byref(hooks)))
src = open(sys.argv[2], "rb").read()
check(lib.vr_module_load(ctx, src, len(src), 0, C.byref(mod)))

def compile(name, *args):  # compiled for the types of these example arguments
    types, f = (Type * len(args))(*map(vtype, args)), C.c_void_p()
    check(lib.vr_compile(mod, name.encode(), types, len(args), C.byref(f)))
    return f

def call(f, args, nres):
    vals, res = (Value * len(args))(*[value(a) for a in args]), (Value * max(nres, 1))()
    check(lib.vr_call(f, vals, len(args), res, nres))
    return [live.pop(r.array.owner) for r in res[:nres]]

x, y = np.arange(1.0, 9.0), np.array([10.0, 20.0, 30.0, 40.0])
call(compile("saxpy", 0.5, x[::2], y), [0.5, x[::2], y], 0)  # x[::2]: a strided view, no copy
assert np.array_equal(y, [10.5, 21.5, 32.5, 43.5]), y
m = np.asfortranarray(np.arange(6.0).reshape(2, 3))
(out,) = call(compile("square_plus_row", m), [m], 1)
assert np.array_equal(out, m * m + np.arange(2.0)[:, None]) and out.flags.f_contiguous, out
try:
    call(compile("at", x[::2], 9), [x[::2], 9], 1)
    raise AssertionError("x[9] of 4 elements did not fail")
except RuntimeError as e:
    assert "index 9 out of bounds 0..4" in str(e), e
print("ok: Python example")
