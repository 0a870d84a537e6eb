/* The Octave MEX shim of Velociraptor: Octave arrays to C API descriptors and back.
 *
 * One MEX function, `vr_mex(command, ...)`, used by the package's .m files
 * (vr_compile.m, vr_call.m, vr_explain.m), never by users directly:
 *
 *   id = vr_mex('register', source, name, path, nout)   a function file and its entry
 *   [status, out] = vr_mex('call', id, nargout, fallback, args...)
 *       status 1: out is a cell of the outputs; 0: out is why the call runs in Octave
 *       (warn); -1: the same, already warned for this specialization
 *   text = vr_mex('explain', id)       what was compiled for it, and why not
 *   text = vr_mex('dump', id)          the VRIR of its specializations
 *   vr_mex('clear')                    forget every compiled specialization
 *
 * Every call specializes on the arguments' classes and shapes (a 1x1 array is a
 * scalar), compiles once through vr_compile_source(ctx, "matlab", ...) and caches the
 * compiled function, so later calls with the same classes and shapes go straight to
 * machine code. Octave's arrays are used in place (column-major, as compiled code
 * wants them); the context's argument convention is by value, so the library copies
 * a parameter the function writes and the caller's arrays never change.
 *
 * Errors: every C API call returns a status; errors become Octave errors through
 * mexErrMsgIdAndTxt only here, in this file's own frames, after everything the call
 * held is released (no Rust frame is ever on the stack when Octave unwinds, and the
 * C API itself catches every panic). Identifiers: velociraptor:bounds,
 * velociraptor:unsupported, velociraptor:shape, velociraptor:runtime, ...
 * The shim stays loaded (mexLock) and frees everything at exit (mexAtExit). Ctrl-C
 * reaches compiled loops through Octave's own flag (octave_signal_caught).
 */

#define MX_HAS_INTERLEAVED_COMPLEX 1
#include "mex.h"
#include "velociraptor.h"

#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Octave's MEX loader (libinterp/corefcn/dynamic-ld.cc) looks for this symbol to hand
 * the file arrays with interleaved complex storage, which MX_HAS_INTERLEAVED_COMPLEX
 * compiles for (mkoctfile -R2018a of later Octave versions adds it the same way). */
void __mx_has_interleaved_complex__(void) {}

/* Octave's "a signal arrived" flag (liboctave, quit.h): set by its SIGINT handler. */
extern volatile sig_atomic_t octave_signal_caught;

#define MAX_ARGS 64
#define MSG_MAX 2048

typedef struct {
  char *source;
  char *name;
  char *path;
  int nout; /* outputs the function declares */
} Entry;

typedef struct Spec {
  int entry;
  int nargout;
  int nargs;
  VrType types[MAX_ARGS];
  unsigned char cls[MAX_ARGS];  /* each argument's class code (CLS_*), 0 for the rest */
  unsigned char rcls[MAX_ARGS]; /* each result's */
  VrFunction *f; /* null when the call runs in Octave */
  char *reason;  /* why it runs in Octave */
  int warned;
  struct Spec *next;
} Spec;

/* MATLAB integer classes without a C API element type of their own: passed widened
 * (int8, int16, uint8, uint16 as int32; uint32 as int64: every value exact) and
 * narrowed back from results the compiler says are of the class. Octave passes values,
 * so a copy changes nothing the function can see. */
enum { CLS_NONE, CLS_INT8, CLS_INT16, CLS_UINT8, CLS_UINT16, CLS_UINT32, CLS_COUNT };
static const char *cls_name[CLS_COUNT] = {"", "int8", "int16", "uint8", "uint16", "uint32"};

static int cls_of(const mxArray *a) {
  switch (mxGetClassID(a)) {
  case mxINT8_CLASS: return CLS_INT8;
  case mxINT16_CLASS: return CLS_INT16;
  case mxUINT8_CLASS: return CLS_UINT8;
  case mxUINT16_CLASS: return CLS_UINT16;
  case mxUINT32_CLASS: return CLS_UINT32;
  default: return CLS_NONE;
  }
}

static mxClassID cls_id(int c) {
  switch (c) {
  case CLS_INT8: return mxINT8_CLASS;
  case CLS_INT16: return mxINT16_CLASS;
  case CLS_UINT8: return mxUINT8_CLASS;
  case CLS_UINT16: return mxUINT16_CLASS;
  default: return mxUINT32_CLASS;
  }
}

/* Element i of a class's data, widened. */
static int64_t cls_get(int c, const void *p, size_t i) {
  switch (c) {
  case CLS_INT8: return ((const int8_t *)p)[i];
  case CLS_INT16: return ((const int16_t *)p)[i];
  case CLS_UINT8: return ((const uint8_t *)p)[i];
  case CLS_UINT16: return ((const uint16_t *)p)[i];
  default: return ((const uint32_t *)p)[i];
  }
}

/* Store v (in the class's range: compiled code saturates) as element i. */
static void cls_set(int c, void *p, size_t i, int64_t v) {
  switch (c) {
  case CLS_INT8: ((int8_t *)p)[i] = (int8_t)v; break;
  case CLS_INT16: ((int16_t *)p)[i] = (int16_t)v; break;
  case CLS_UINT8: ((uint8_t *)p)[i] = (uint8_t)v; break;
  case CLS_UINT16: ((uint16_t *)p)[i] = (uint16_t)v; break;
  default: ((uint32_t *)p)[i] = (uint32_t)v; break;
  }
}

static VrContext *ctx = NULL;
static Entry *entries = NULL;
static int n_entries = 0;
static Spec *specs = NULL;

static void free_specs(void) {
  while (specs) {
    Spec *s = specs;
    specs = s->next;
    vr_function_free(s->f);
    free(s->reason);
    free(s);
  }
}

static void at_exit(void) {
  free_specs();
  for (int i = 0; i < n_entries; i++) {
    free(entries[i].source);
    free(entries[i].name);
    free(entries[i].path);
  }
  free(entries);
  entries = NULL;
  n_entries = 0;
  vr_context_destroy(ctx);
  ctx = NULL;
}

static const char *status_id(VrStatus st) {
  switch (st) {
  case VR_PARSE_ERROR: return "velociraptor:parse";
  case VR_TYPE_ERROR: return "velociraptor:type";
  case VR_UNSUPPORTED: return "velociraptor:unsupported";
  case VR_OUT_OF_BOUNDS: return "velociraptor:bounds";
  case VR_DIVISION_BY_ZERO: return "velociraptor:division";
  case VR_SHAPE_MISMATCH: return "velociraptor:shape";
  case VR_RUNTIME_ERROR: return "velociraptor:runtime";
  case VR_INVALID_ARGUMENT: return "velociraptor:invalid";
  case VR_DEVICE_ERROR: return "velociraptor:device";
  case VR_INTERRUPTED: return "velociraptor:interrupted";
  default: return "velociraptor:internal";
  }
}

/* The last C API error as one message: the message, then where (function, line) and,
 * for index errors, the variable, index and bound. */
static void last_error_text(char *buf, size_t n) {
  VrErrorInfo info;
  vr_last_error(&info);
  int k = snprintf(buf, n, "velociraptor: %s", info.message ? info.message : "unknown error");
  if (k < 0 || (size_t)k >= n) return;
  if (info.function && !strstr(info.message ? info.message : "", " in ")) {
    k += snprintf(buf + k, n - k, " [function %s", info.function);
    if (info.line >= 0) k += snprintf(buf + k, n - k, ", line %lld", (long long)info.line);
    if (info.variable) k += snprintf(buf + k, n - k, ", variable %s", info.variable);
    if (info.has_index) k += snprintf(buf + k, n - k, ", index %lld", (long long)info.index);
    if (info.has_bound) k += snprintf(buf + k, n - k, ", bound %lld", (long long)info.bound);
    if ((size_t)k < n) snprintf(buf + k, n - k, "]");
  } else if (info.variable || info.has_index) {
    k += snprintf(buf + k, n - k, " [");
    if (info.variable) k += snprintf(buf + k, n - k, "variable %s ", info.variable);
    if (info.has_index) k += snprintf(buf + k, n - k, "index %lld ", (long long)info.index);
    if (info.has_bound) k += snprintf(buf + k, n - k, "bound %lld", (long long)info.bound);
    if ((size_t)k < n) snprintf(buf + k, n - k, "]");
  }
}

static void ensure_context(void) {
  if (ctx) return;
  /* cpu-par: parfor loops and large element-wise operators use every core (serial code
   * is the same either way; VR_OCTAVE_BACKEND=cpu keeps everything on one thread, for
   * measuring); Octave passes values, so parameters never alias. */
  const char *backend = getenv("VR_OCTAVE_BACKEND");
  const char *keys[] = {"params_noalias", "backend"};
  const char *values[] = {"yes", backend && *backend ? backend : "cpu-par"};
  VrStatus st = vr_context_create(keys, values, 2, &ctx);
  if (st != VR_OK) {
    char msg[MSG_MAX];
    last_error_text(msg, sizeof msg);
    mexErrMsgIdAndTxt(status_id(st), "%s", msg);
  }
  VrHostHooks hooks;
  memset(&hooks, 0, sizeof hooks);
  hooks.arg_convention = VR_BY_VALUE;
  vr_context_set_hooks(ctx, &hooks);
  /* Compiled loops poll Octave's signal flag: Ctrl-C stops them. */
  vr_set_interrupt_flag((const int32_t *)&octave_signal_caught);
  mexLock();
  mexAtExit(at_exit);
}

static char *string_arg(const mxArray *a, const char *what) {
  if (!mxIsChar(a)) mexErrMsgIdAndTxt("velociraptor:invalid", "vr_mex: %s must be a string", what);
  char *s = mxArrayToString(a);
  char *copy = strdup(s ? s : "");
  mxFree(s);
  return copy;
}

/* The C API type of an Octave value; 0 when its class or shape does not compile (then
 * `why` says which). */
static int type_of(const mxArray *a, VrType *t, unsigned char *cls, char *why, size_t n) {
  memset(t, 0, sizeof *t);
  *cls = CLS_NONE;
  t->layout = VR_LAYOUT_COL;
  if (mxIsSparse(a)) {
    snprintf(why, n, "a sparse argument");
    return 0;
  }
  if (mxIsDouble(a)) {
    t->elem = mxIsComplex(a) ? VR_C128 : VR_F64;
  } else if (mxIsLogical(a)) {
    t->elem = VR_BOOL;
  } else if (mxIsInt32(a) && !mxIsComplex(a)) {
    t->elem = VR_I32;
  } else if (mxIsInt64(a) && !mxIsComplex(a)) {
    t->elem = VR_I64;
  } else if (cls_of(a) != CLS_NONE && !mxIsComplex(a)) {
    *cls = (unsigned char)cls_of(a);
    t->elem = *cls == CLS_UINT32 ? VR_I64 : VR_I32;
  } else {
    snprintf(why, n, "an argument of class %s (double, logical, int8, int16, int32, int64, uint8, uint16 and uint32 compile)", mxGetClassName(a));
    return 0;
  }
  mwSize nd = mxGetNumberOfDimensions(a);
  if (nd == 2 && mxGetNumberOfElements(a) == 1) {
    t->kind = VR_KIND_SCALAR;
    return 1;
  }
  if (nd > 3) {
    snprintf(why, n, "an argument of %d dimensions (up to 3 compile)", (int)nd);
    return 0;
  }
  t->kind = VR_KIND_ARRAY;
  t->ndims = (int32_t)nd;
  return 1;
}

static void *data_of(const mxArray *a, int32_t elem) {
  switch (elem) {
  case VR_C128: return mxGetComplexDoubles(a);
  case VR_BOOL: return mxGetLogicals(a);
  case VR_I32: return mxGetInt32s(a);
  case VR_I64: return mxGetInt64s(a);
  default: return mxGetDoubles(a);
  }
}

static void value_of(const mxArray *a, const VrType *t, int cls, VrValue *v) {
  memset(v, 0, sizeof *v);
  v->kind = t->kind;
  v->elem = t->elem;
  void *p;
  if (cls != CLS_NONE) {
    /* A widening copy (mxMalloc: Octave frees it if the call raises). */
    const void *src = mxGetData(a);
    size_t count = mxGetNumberOfElements(a);
    if (t->kind == VR_KIND_SCALAR) {
      if (t->elem == VR_I64)
        v->scalar.as_i64 = cls_get(cls, src, 0);
      else
        v->scalar.as_i32 = (int32_t)cls_get(cls, src, 0);
      return;
    }
    p = mxMalloc(count ? count * (t->elem == VR_I64 ? 8 : 4) : 1);
    for (size_t i = 0; i < count; i++) {
      if (t->elem == VR_I64)
        ((int64_t *)p)[i] = cls_get(cls, src, i);
      else
        ((int32_t *)p)[i] = (int32_t)cls_get(cls, src, i);
    }
  } else {
    p = data_of(a, t->elem);
  }
  if (t->kind == VR_KIND_SCALAR) {
    switch (t->elem) {
    case VR_C128: memcpy(v->scalar.as_c128, p, 2 * sizeof(double)); break;
    case VR_BOOL: v->scalar.as_bool = *(mxLogical *)p ? 1 : 0; break;
    case VR_I32: v->scalar.as_i32 = *(int32_t *)p; break;
    case VR_I64: v->scalar.as_i64 = *(int64_t *)p; break;
    default: v->scalar.as_f64 = *(double *)p; break;
    }
    return;
  }
  VrArray *arr = &v->array;
  arr->data = p;
  arr->elem = t->elem;
  arr->ndims = t->ndims;
  const mwSize *d = mxGetDimensions(a);
  int64_t stride = 1;
  for (int k = 0; k < t->ndims; k++) {
    arr->dims[k] = (int64_t)d[k];
    arr->strides[k] = stride;
    /* An extent of 0 counts as 1, as the C API's contiguous strides do (zeros(0, 3)). */
    stride *= d[k] > 1 ? (int64_t)d[k] : 1;
  }
  arr->layout = VR_LAYOUT_COL;
  arr->flags = 0; /* read-only: the library copies what the function writes */
  arr->owner = NULL;
}

static size_t elem_size(int32_t elem) {
  switch (elem) {
  case VR_BOOL: return 1;
  case VR_I32: return 4;
  case VR_C128: return 16;
  default: return 8;
  }
}

/* An Octave value for a result; arrays are copied out of the library's memory (in any
 * strides), which is then freed. A complex result whose imaginary parts are all zero
 * becomes real, as Octave narrows its own. Null for an element type Octave cannot
 * hold here. */
/* An array result's Octave dimensions (at least two: a vector is a column) into dims,
 * their product into count; returns how many. */
static int octave_dims(const VrArray *r, mwSize *dims, size_t *count) {
  int nd = r->ndims < 2 ? 2 : r->ndims;
  *count = 1;
  for (int k = 0; k < nd; k++) {
    dims[k] = k < r->ndims ? (mwSize)r->dims[k] : 1;
    *count *= dims[k];
  }
  return nd;
}

static mxArray *to_octave(VrValue *v, int cls) {
  if (cls != CLS_NONE) {
    /* A narrowing copy out of the storage type (i32, or i64 for uint32). */
    if (v->elem != (cls == CLS_UINT32 ? VR_I64 : VR_I32)) return NULL;
    if (v->kind == VR_KIND_SCALAR) {
      mxArray *a = mxCreateNumericMatrix(1, 1, cls_id(cls), mxREAL);
      cls_set(cls, mxGetData(a), 0, v->elem == VR_I64 ? v->scalar.as_i64 : v->scalar.as_i32);
      return a;
    }
    VrArray *r = &v->array;
    mwSize dims[VR_MAX_NDIMS];
    size_t count;
    int nd = octave_dims(r, dims, &count);
    mxArray *a = mxCreateNumericArray(nd, dims, cls_id(cls), mxREAL);
    void *dst = mxGetData(a);
    for (size_t i = 0; i < count; i++) {
      int64_t off = 0, rem = (int64_t)i;
      for (int k = 0; k < r->ndims; k++) {
        off += (rem % r->dims[k]) * r->strides[k];
        rem /= r->dims[k];
      }
      cls_set(cls, dst, i, v->elem == VR_I64 ? ((const int64_t *)r->data)[off] : ((const int32_t *)r->data)[off]);
    }
    return a;
  }
  if (v->kind == VR_KIND_SCALAR) {
    switch (v->elem) {
    case VR_F64: return mxCreateDoubleScalar(v->scalar.as_f64);
    case VR_BOOL: return mxCreateLogicalScalar(v->scalar.as_bool != 0);
    case VR_I32: {
      mxArray *a = mxCreateNumericMatrix(1, 1, mxINT32_CLASS, mxREAL);
      *mxGetInt32s(a) = v->scalar.as_i32;
      return a;
    }
    case VR_C128: {
      if (v->scalar.as_c128[1] == 0.0) return mxCreateDoubleScalar(v->scalar.as_c128[0]);
      mxArray *a = mxCreateDoubleMatrix(1, 1, mxCOMPLEX);
      mxComplexDouble *c = mxGetComplexDoubles(a);
      c->real = v->scalar.as_c128[0];
      c->imag = v->scalar.as_c128[1];
      return a;
    }
    case VR_I64: {
      mxArray *a = mxCreateNumericMatrix(1, 1, mxINT64_CLASS, mxREAL);
      *mxGetInt64s(a) = v->scalar.as_i64;
      return a;
    }
    default: return NULL;
    }
  }
  VrArray *r = &v->array;
  mwSize dims[VR_MAX_NDIMS];
  size_t count;
  int nd = octave_dims(r, dims, &count);
  int32_t elem = r->elem;
  int narrow = 0;
  if (elem == VR_C128) {
    narrow = 1;
    for (size_t i = 0; i < count && narrow; i++) {
      int64_t off = 0, rem = (int64_t)i;
      for (int k = 0; k < r->ndims; k++) {
        off += (rem % r->dims[k]) * r->strides[k];
        rem /= r->dims[k];
      }
      if (((double *)r->data)[2 * off + 1] != 0.0) narrow = 0;
    }
  }
  mxArray *a;
  switch (elem) {
  case VR_F64: a = mxCreateNumericArray(nd, dims, mxDOUBLE_CLASS, mxREAL); break;
  case VR_C128: a = mxCreateNumericArray(nd, dims, mxDOUBLE_CLASS, narrow ? mxREAL : mxCOMPLEX); break;
  case VR_BOOL: a = mxCreateLogicalArray(nd, dims); break;
  case VR_I32: a = mxCreateNumericArray(nd, dims, mxINT32_CLASS, mxREAL); break;
  case VR_I64: a = mxCreateNumericArray(nd, dims, mxINT64_CLASS, mxREAL); break;
  default: return NULL;
  }
  size_t es = elem_size(elem);
  char *dst = narrow ? (char *)mxGetDoubles(a) : (char *)data_of(a, elem);
  const char *src = (const char *)r->data;
  for (size_t i = 0; i < count; i++) {
    int64_t off = 0, rem = (int64_t)i;
    for (int k = 0; k < r->ndims; k++) {
      off += (rem % r->dims[k]) * r->strides[k];
      rem /= r->dims[k];
    }
    if (narrow)
      ((double *)dst)[i] = ((const double *)src)[2 * off];
    else
      memcpy(dst + i * es, src + off * es, es);
  }
  return a;
}

static Spec *find_spec(int entry, int nargout, int nargs, const VrType *types, const unsigned char *cls) {
  for (Spec *s = specs; s; s = s->next) {
    if (s->entry != entry || s->nargout != nargout || s->nargs != nargs) continue;
    if (nargs == 0 || (memcmp(s->types, types, nargs * sizeof(VrType)) == 0 && memcmp(s->cls, cls, nargs) == 0)) return s;
  }
  return NULL;
}

static Spec *new_spec(int entry, int nargout, int nargs, const VrType *types, const unsigned char *cls) {
  Spec *s = calloc(1, sizeof *s);
  if (!s) mexErrMsgIdAndTxt("velociraptor:internal", "vr_mex: out of memory");
  s->entry = entry;
  s->nargout = nargout;
  s->nargs = nargs;
  memcpy(s->types, types, nargs * sizeof(VrType));
  if (nargs) memcpy(s->cls, cls, nargs);
  s->next = specs;
  specs = s;
  return s;
}

/* [status, out] for a call that runs in Octave. */
static void fallback_result(Spec *s, int nlhs, mxArray *plhs[]) {
  plhs[0] = mxCreateDoubleScalar(s->warned ? -1.0 : 0.0);
  s->warned = 1;
  if (nlhs > 1) plhs[1] = mxCreateString(s->reason ? s->reason : "");
}

static int entry_arg(const mxArray *a) {
  int id = (int)mxGetScalar(a);
  if (id < 1 || id > n_entries) mexErrMsgIdAndTxt("velociraptor:invalid", "vr_mex: no compiled function %d", id);
  return id - 1;
}

static void cmd_register(int nlhs, mxArray *plhs[], int nrhs, const mxArray *prhs[]) {
  (void)nlhs;
  if (nrhs != 5) mexErrMsgIdAndTxt("velociraptor:invalid", "vr_mex('register', source, name, path, nout)");
  char *source = string_arg(prhs[1], "the source");
  char *name = string_arg(prhs[2], "the name");
  char *path = string_arg(prhs[3], "the path");
  int nout = (int)mxGetScalar(prhs[4]);
  for (int i = 0; i < n_entries; i++) {
    if (strcmp(entries[i].name, name) == 0 && strcmp(entries[i].path, path) == 0) {
      if (strcmp(entries[i].source, source) != 0) {
        /* The file changed: compile afresh. */
        free(entries[i].source);
        entries[i].source = source;
        entries[i].nout = nout;
        Spec **p = &specs;
        while (*p) {
          if ((*p)->entry == i) {
            Spec *dead = *p;
            *p = dead->next;
            vr_function_free(dead->f);
            free(dead->reason);
            free(dead);
          } else {
            p = &(*p)->next;
          }
        }
      } else {
        free(source);
      }
      free(name);
      free(path);
      plhs[0] = mxCreateDoubleScalar(i + 1);
      return;
    }
  }
  Entry *grown = realloc(entries, (n_entries + 1) * sizeof(Entry));
  if (!grown) mexErrMsgIdAndTxt("velociraptor:internal", "vr_mex: out of memory");
  entries = grown;
  entries[n_entries].source = source;
  entries[n_entries].name = name;
  entries[n_entries].path = path;
  entries[n_entries].nout = nout;
  n_entries++;
  plhs[0] = mxCreateDoubleScalar(n_entries);
}

static void cmd_call(int nlhs, mxArray *plhs[], int nrhs, const mxArray *prhs[]) {
  if (nrhs < 4) mexErrMsgIdAndTxt("velociraptor:invalid", "vr_mex('call', id, nargout, fallback, args...)");
  int e = entry_arg(prhs[1]);
  int nargout = (int)mxGetScalar(prhs[2]);
  int fallback = mxIsLogicalScalarTrue(prhs[3]) || (mxIsDouble(prhs[3]) && mxGetScalar(prhs[3]) != 0);
  int nargs = nrhs - 4;
  const mxArray **args = prhs + 4;
  if (nargs > MAX_ARGS) mexErrMsgIdAndTxt("velociraptor:invalid", "vr_mex: at most %d arguments", MAX_ARGS);
  Entry *en = &entries[e];
  VrType types[MAX_ARGS];
  unsigned char cls[MAX_ARGS];
  char why[512];
  int any_cls = 0;
  for (int i = 0; i < nargs; i++) {
    if (type_of(args[i], &types[i], &cls[i], why, sizeof why)) {
      any_cls |= cls[i] != CLS_NONE;
    } else {
      Spec *s = find_spec(e, nargout, 0, NULL, NULL);
      char reason[MSG_MAX];
      snprintf(reason, sizeof reason, "velociraptor: argument %d of `%s`: %s", i + 1, en->name, why);
      if (!fallback) mexErrMsgIdAndTxt("velociraptor:unsupported", "%s", reason);
      (void)s;
      plhs[0] = mxCreateDoubleScalar(0.0);
      if (nlhs > 1) plhs[1] = mxCreateString(reason);
      return;
    }
  }
  Spec *s = find_spec(e, nargout, nargs, types, cls);
  if (!s) {
    char fname[1024];
    if (nargout < en->nout)
      snprintf(fname, sizeof fname, "%s.nargout%d", en->name, nargout);
    else
      snprintf(fname, sizeof fname, "%s", en->name);
    VrFunction *f = NULL;
    VrStatus st;
    if (any_cls) {
      /* The classes cross as signature JSON ("int8", "uint16[2]"; docs/c-api.md). */
      char sig[MAX_ARGS * 24 + 32];
      size_t len = (size_t)snprintf(sig, sizeof sig, "{\"args\": [");
      for (int i = 0; i < nargs; i++) {
        const char *el = cls[i] != CLS_NONE ? cls_name[cls[i]]
                         : types[i].elem == VR_F64 ? "f64" : types[i].elem == VR_C128 ? "c128" : types[i].elem == VR_BOOL ? "bool" : types[i].elem == VR_I32 ? "i32" : "i64";
        if (types[i].kind == VR_KIND_SCALAR)
          len += (size_t)snprintf(sig + len, sizeof sig - len, "%s\"%s\"", i ? ", " : "", el);
        else
          len += (size_t)snprintf(sig + len, sizeof sig - len, "%s\"%s[%d]\"", i ? ", " : "", el, (int)types[i].ndims);
      }
      snprintf(sig + len, sizeof sig - len, "]}");
      st = vr_compile_source_sig(ctx, "matlab", en->source, fname, sig, &f);
    } else {
      st = vr_compile_source(ctx, "matlab", en->source, fname, types, (size_t)nargs, &f);
    }
    if (st == VR_UNSUPPORTED) {
      char msg[MSG_MAX];
      last_error_text(msg, sizeof msg);
      if (!fallback) mexErrMsgIdAndTxt(status_id(st), "%s", msg);
      s = new_spec(e, nargout, nargs, types, cls);
      s->reason = strdup(msg);
    } else if (st != VR_OK) {
      char msg[MSG_MAX];
      last_error_text(msg, sizeof msg);
      mexErrMsgIdAndTxt(status_id(st), "%s", msg);
    } else {
      s = new_spec(e, nargout, nargs, types, cls);
      s->f = f;
      /* The results' classes: {"classes": ["int8", "double", ...]}. */
      char *list = NULL;
      if (vr_function_result_list(f, &list) == VR_OK && list) {
        const char *q = strchr(list, '[');
        for (int k = 0; q && k < MAX_ARGS; k++) {
          const char *open = strchr(q, '"');
          if (!open) break;
          const char *close = strchr(open + 1, '"');
          if (!close) break;
          for (int c = 1; c < CLS_COUNT; c++)
            if ((size_t)(close - open - 1) == strlen(cls_name[c]) && strncmp(open + 1, cls_name[c], strlen(cls_name[c])) == 0) s->rcls[k] = (unsigned char)c;
          q = close + 1;
        }
        vr_string_free(list);
      }
    }
  }
  if (!s->f) {
    /* Compiled before (by a handle with fallback) into a call that runs in Octave: a
     * handle without fallback still gets the error. */
    if (!fallback) mexErrMsgIdAndTxt("velociraptor:unsupported", "%s", s->reason ? s->reason : "velociraptor: runs in Octave");
    fallback_result(s, nlhs, plhs);
    return;
  }
  VrType rtypes[MAX_ARGS];
  size_t np = 0, nr = 0;
  vr_function_signature(s->f, NULL, 0, &np, rtypes, MAX_ARGS, &nr);
  if (nr > MAX_ARGS) mexErrMsgIdAndTxt("velociraptor:invalid", "vr_mex: at most %d results", MAX_ARGS);
  VrValue in[MAX_ARGS];
  VrValue out[MAX_ARGS];
  memset(out, 0, sizeof out);
  for (int i = 0; i < nargs; i++) value_of(args[i], &types[i], cls[i], &in[i]);
  VrStatus st = vr_call(s->f, in, (size_t)nargs, out, nr);
  if (st != VR_OK) {
    char msg[MSG_MAX];
    last_error_text(msg, sizeof msg);
    if (st == VR_UNSUPPORTED && fallback) {
      /* A value compiled code leaves to Octave (broadcasting, a complex result, ...). */
      plhs[0] = mxCreateDoubleScalar(s->warned ? -1.0 : 0.0);
      s->warned = 1;
      if (nlhs > 1) plhs[1] = mxCreateString(msg);
      return;
    }
    if (st == VR_INTERRUPTED) mexErrMsgIdAndTxt("velociraptor:interrupted", "velociraptor: `%s` interrupted (Ctrl-C)", en->name);
    mexErrMsgIdAndTxt(status_id(st), "%s", msg);
  }
  /* Copy the results out (library memory freed at once), then build the cell. */
  mxArray *results[MAX_ARGS];
  int bad = -1;
  for (size_t i = 0; i < nr; i++) {
    results[i] = to_octave(&out[i], s->rcls[i]);
    if (!results[i]) bad = (int)i;
    if (out[i].kind == VR_KIND_ARRAY) vr_array_free(&out[i].array);
  }
  if (bad >= 0) {
    for (size_t i = 0; i < nr; i++)
      if (results[i]) mxDestroyArray(results[i]);
    mexErrMsgIdAndTxt("velociraptor:internal", "vr_mex: result %d has a type Octave cannot hold", bad + 1);
  }
  mxArray *cell = mxCreateCellMatrix(1, (mwSize)nr);
  for (size_t i = 0; i < nr; i++) mxSetCell(cell, (mwIndex)i, results[i]);
  plhs[0] = mxCreateDoubleScalar(1.0);
  if (nlhs > 1)
    plhs[1] = cell;
  else
    mxDestroyArray(cell);
}

static void append(char **buf, size_t *len, const char *text) {
  size_t n = strlen(text);
  char *grown = realloc(*buf, *len + n + 1);
  if (!grown) return;
  *buf = grown;
  memcpy(*buf + *len, text, n + 1);
  *len += n;
}

static const char *type_text(const VrType *t, int c, char *buf, size_t n) {
  const char *cls = c != CLS_NONE ? cls_name[c] : t->elem == VR_F64 ? "double" : t->elem == VR_C128 ? "complex double" : t->elem == VR_BOOL ? "logical" : t->elem == VR_I32 ? "int32" : t->elem == VR_I64 ? "int64" : "?";
  if (t->kind == VR_KIND_SCALAR)
    snprintf(buf, n, "%s scalar", cls);
  else
    snprintf(buf, n, "%s %d-d array", cls, t->ndims);
  return buf;
}

static void cmd_report(int nlhs, mxArray *plhs[], int nrhs, const mxArray *prhs[], int what) {
  (void)nlhs;
  if (nrhs != 2) mexErrMsgIdAndTxt("velociraptor:invalid", "vr_mex('explain' or 'dump', id)");
  int e = entry_arg(prhs[1]);
  char *buf = NULL;
  size_t len = 0;
  char line[MSG_MAX];
  snprintf(line, sizeof line, "%s (%s)\n", entries[e].name, entries[e].path);
  append(&buf, &len, line);
  int count = 0;
  for (Spec *s = specs; s; s = s->next) {
    if (s->entry != e) continue;
    count++;
    snprintf(line, sizeof line, "\n-- specialization for %d output(s), arguments (", s->nargout);
    append(&buf, &len, line);
    for (int i = 0; i < s->nargs; i++) {
      char t[64];
      append(&buf, &len, type_text(&s->types[i], s->cls[i], t, sizeof t));
      if (i + 1 < s->nargs) append(&buf, &len, ", ");
    }
    append(&buf, &len, ")\n");
    if (!s->f) {
      snprintf(line, sizeof line, "runs in Octave: %s\n", s->reason ? s->reason : "");
      append(&buf, &len, line);
      continue;
    }
    char *text = NULL;
    if (vr_function_dump(s->f, what, &text) == VR_OK && text) {
      append(&buf, &len, text);
      vr_string_free(text);
    }
  }
  if (count == 0) append(&buf, &len, "not called yet: nothing compiled (compilation happens at the first call, per argument classes and shapes)\n");
  plhs[0] = mxCreateString(buf ? buf : "");
  free(buf);
}

void mexFunction(int nlhs, mxArray *plhs[], int nrhs, const mxArray *prhs[]) {
  if (nrhs < 1 || !mxIsChar(prhs[0])) mexErrMsgIdAndTxt("velociraptor:invalid", "vr_mex(command, ...): use vr_compile");
  char cmd[32];
  mxGetString(prhs[0], cmd, sizeof cmd);
  ensure_context();
  if (strcmp(cmd, "register") == 0)
    cmd_register(nlhs, plhs, nrhs, prhs);
  else if (strcmp(cmd, "call") == 0)
    cmd_call(nlhs, plhs, nrhs, prhs);
  else if (strcmp(cmd, "explain") == 0)
    cmd_report(nlhs, plhs, nrhs, prhs, VR_DUMP_EXPLAIN);
  else if (strcmp(cmd, "dump") == 0)
    cmd_report(nlhs, plhs, nrhs, prhs, VR_DUMP_VRIR_TEXT);
  else if (strcmp(cmd, "clear") == 0)
    free_specs();
  else if (strcmp(cmd, "abi") == 0)
    plhs[0] = mxCreateDoubleScalar((double)vr_abi_version());
  else
    mexErrMsgIdAndTxt("velociraptor:invalid", "vr_mex: unknown command `%s`", cmd);
}
