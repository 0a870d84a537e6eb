/* C references of the Octave benchmark kernels (bench/octave/*.m): the same algorithms
 * on column-major arrays, as a C programmer writes them, behind one MEX entry
 * crefs(name, args...) so that bench/octave/run.m times them on Octave's own arrays
 * (built by run.m: CFLAGS='-O2 -march=native -ffp-contract=off' mkoctfile --mex). */
#include "mex.h"
#include <math.h>
#include <stdlib.h>
#include <string.h>

#define IX(i, j, n) ((i) + (size_t)(j) * (n))
#define IX3(i, j, k, n) ((i) + (size_t)(n) * ((j) + (size_t)(n) * (k)))

static void clos(double *B, int n) {
  for (int k = 0; k < n; k++)
    for (int j = 0; j < n; j++)
      if (B[IX(k, j, n)] != 0)
        for (int i = 0; i < n; i++)
          if (B[IX(i, k, n)] != 0) B[IX(i, j, n)] = 1;
}

static void nb1d(double *x, double *v, const double *m, int n, int steps, double dt) {
  double *f = calloc(n, sizeof *f);
  for (int s = 0; s < steps; s++) {
    for (int i = 0; i < n; i++) {
      double fi = 0;
      for (int j = 0; j < n; j++) {
        double d = x[j] - x[i];
        double a = fabs(d);
        fi += m[j] * d / (pow(a, 3.0) + 0.01);
      }
      f[i] = fi;
    }
    for (int i = 0; i < n; i++) {
      v[i] += dt * f[i];
      x[i] += dt * v[i];
    }
  }
  free(f);
}

static void nb3d(double *P, double *V, const double *m, int n, int steps, double dt) {
  double *F = calloc(3 * (size_t)n, sizeof *F);
  for (int s = 0; s < steps; s++) {
    for (int i = 0; i < n; i++) {
      double fx = 0, fy = 0, fz = 0;
      for (int j = 0; j < n; j++) {
        double dx = P[IX(j, 0, n)] - P[IX(i, 0, n)];
        double dy = P[IX(j, 1, n)] - P[IX(i, 1, n)];
        double dz = P[IX(j, 2, n)] - P[IX(i, 2, n)];
        double r2 = dx * dx + dy * dy + dz * dz + 0.01;
        double w = m[j] / (r2 * sqrt(r2));
        fx += w * dx;
        fy += w * dy;
        fz += w * dz;
      }
      F[IX(i, 0, n)] = fx;
      F[IX(i, 1, n)] = fy;
      F[IX(i, 2, n)] = fz;
    }
    for (int i = 0; i < n; i++)
      for (int c = 0; c < 3; c++) {
        V[IX(i, c, n)] += dt * F[IX(i, c, n)];
        P[IX(i, c, n)] += dt * V[IX(i, c, n)];
      }
  }
  free(F);
}

static void fdtd(double *Ez, int n, int steps) {
  size_t N = (size_t)n * n * n;
  double *Ex = calloc(N, 8), *Ey = calloc(N, 8), *Hx = calloc(N, 8), *Hy = calloc(N, 8), *Hz = calloc(N, 8);
  double ce = 0.5, ch = 0.5;
  int c = n / 2 - 1;
  for (int t = 1; t <= steps; t++) {
    for (int k = 0; k < n - 1; k++)
      for (int j = 0; j < n - 1; j++)
        for (int i = 0; i < n - 1; i++) {
          Hx[IX3(i, j, k, n)] += ch * ((Ey[IX3(i, j, k + 1, n)] - Ey[IX3(i, j, k, n)]) - (Ez[IX3(i, j + 1, k, n)] - Ez[IX3(i, j, k, n)]));
          Hy[IX3(i, j, k, n)] += ch * ((Ez[IX3(i + 1, j, k, n)] - Ez[IX3(i, j, k, n)]) - (Ex[IX3(i, j, k + 1, n)] - Ex[IX3(i, j, k, n)]));
          Hz[IX3(i, j, k, n)] += ch * ((Ex[IX3(i, j + 1, k, n)] - Ex[IX3(i, j, k, n)]) - (Ey[IX3(i + 1, j, k, n)] - Ey[IX3(i, j, k, n)]));
        }
    for (int k = 1; k < n; k++)
      for (int j = 1; j < n; j++)
        for (int i = 1; i < n; i++) {
          Ex[IX3(i, j, k, n)] += ce * ((Hz[IX3(i, j, k, n)] - Hz[IX3(i, j - 1, k, n)]) - (Hy[IX3(i, j, k, n)] - Hy[IX3(i, j, k - 1, n)]));
          Ey[IX3(i, j, k, n)] += ce * ((Hx[IX3(i, j, k, n)] - Hx[IX3(i, j, k - 1, n)]) - (Hz[IX3(i, j, k, n)] - Hz[IX3(i - 1, j, k, n)]));
          Ez[IX3(i, j, k, n)] += ce * ((Hy[IX3(i, j, k, n)] - Hy[IX3(i - 1, j, k, n)]) - (Hx[IX3(i, j, k, n)] - Hx[IX3(i, j - 1, k, n)]));
        }
    Ez[IX3(c, c, c, n)] += sin(0.1 * t);
  }
  free(Ex); free(Ey); free(Hx); free(Hy); free(Hz);
}

static double capr(int n, int iters) {
  double *u = calloc((size_t)n * n, 8);
  int a = n / 3, b = n - a + 1; /* 1-based bounds as in capr.m */
  for (int j = a; j <= b; j++)
    for (int i = a; i <= b; i++) u[IX(i - 1, j - 1, n)] = 1;
  double w = 1.8;
  for (int it = 0; it < iters; it++)
    for (int j = 2; j <= n - 1; j++)
      for (int i = 2; i <= n - 1; i++)
        if (i < a || i > b || j < a || j > b) {
          double r = 0.25 * (u[IX(i - 2, j - 1, n)] + u[IX(i, j - 1, n)] + u[IX(i - 1, j - 2, n)] + u[IX(i - 1, j, n)]) - u[IX(i - 1, j - 1, n)];
          u[IX(i - 1, j - 1, n)] += w * r;
        }
  double q = 0;
  int k = a - 1;
#define U(i, j) u[IX((i) - 1, (j) - 1, n)]
  for (int i = a - 1; i <= b + 1; i++) {
    q = q + (U(i, k) - U(i, k - 1)) + (U(i, n - k + 1) - U(i, n - k + 2));
    q = q + (U(k, i) - U(k - 1, i)) + (U(n - k + 1, i) - U(n - k + 2, i));
  }
#undef U
  free(u);
  return q;
}

static void crni(double *u, int n, int steps) {
  double dx = 1.0 / (n + 1), dt = 0.5 * dx, r = dt / (dx * dx);
  for (int i = 1; i <= n; i++) u[i - 1] = sin(M_PI * i * dx) + 0.5 * sin(3 * M_PI * i * dx);
  double a = -r / 2, b = 1 + r, c = -r / 2;
  double *cp = calloc(n, 8), *d = calloc(n, 8);
  for (int s = 0; s < steps; s++) {
    for (int i = 0; i < n; i++) {
      double left = i > 0 ? u[i - 1] : 0, right = i < n - 1 ? u[i + 1] : 0;
      d[i] = (r / 2) * left + (1 - r) * u[i] + (r / 2) * right;
    }
    cp[0] = c / b;
    d[0] = d[0] / b;
    for (int i = 1; i < n; i++) {
      double den = b - a * cp[i - 1];
      cp[i] = c / den;
      d[i] = (d[i] - a * d[i - 1]) / den;
    }
    u[n - 1] = d[n - 1];
    for (int i = n - 2; i >= 0; i--) u[i] = d[i] - cp[i] * u[i + 1];
  }
  free(cp); free(d);
}

static int diri(double *u, int n, double tol, int maxit) {
  double *v = calloc((size_t)n * n, 8);
  for (int j = 0; j < n; j++) u[IX(0, j, n)] = 1;
  memcpy(v, u, (size_t)n * n * 8);
  int it = 0;
  double err = tol + 1;
  while (err > tol && it < maxit) {
    err = 0;
    for (int j = 1; j < n - 1; j++)
      for (int i = 1; i < n - 1; i++) {
        v[IX(i, j, n)] = 0.25 * (u[IX(i - 1, j, n)] + u[IX(i + 1, j, n)] + u[IX(i, j - 1, n)] + u[IX(i, j + 1, n)]);
        double e = fabs(v[IX(i, j, n)] - u[IX(i, j, n)]);
        if (e > err) err = e;
      }
    memcpy(u, v, (size_t)n * n * 8);
    it++;
  }
  free(v);
  return it;
}

static void mbrt(double *y, int n, int iters) {
  for (int r = 1; r <= n; r++)
    for (int c = 1; c <= n; c++) {
      double zr = 0, zi = 0;
      double cr = -2 + 2.5 * (c - 1) / n, ci = -1.25 + 2.5 * (r - 1) / n;
      int k = 0;
      while (k < iters && hypot(zr, zi) <= 2) {
        double t = zr * zr - zi * zi + cr;
        zi = zr * zi + zi * zr + ci;
        zr = t;
        k++;
      }
      y[IX(r - 1, c - 1, n)] = k;
    }
}

static void fiff(double *u, int n, int steps) {
  double c2 = 0.2;
  size_t N = (size_t)n * n;
  double *u0 = calloc(N, 8), *u1 = malloc(N * 8);
  for (int j = 2; j <= n - 1; j++)
    for (int i = 2; i <= n - 1; i++) u0[IX(i - 1, j - 1, n)] = sin(M_PI * (i - 1) / (n - 1)) * sin(2 * M_PI * (j - 1) / (n - 1));
  memcpy(u1, u0, N * 8);
  memcpy(u, u0, N * 8);
  for (int s = 0; s < steps; s++) {
    for (int j = 1; j < n - 1; j++)
      for (int i = 1; i < n - 1; i++)
        u[IX(i, j, n)] = 2 * u1[IX(i, j, n)] - u0[IX(i, j, n)] + c2 * (u1[IX(i - 1, j, n)] + u1[IX(i + 1, j, n)] + u1[IX(i, j - 1, n)] + u1[IX(i, j + 1, n)] - 4 * u1[IX(i, j, n)]);
    double *t = u0;
    u0 = u1;
    u1 = t;
    memcpy(u1, u, N * 8);
  }
  free(u0); free(u1);
}

static void pmc(double *y, const double *x, int n, int terms) {
  for (int i = 0; i < n; i++) {
    double s = 0, t = x[i];
    for (int k = 1; k <= terms; k++) s += sin(k * t) / k;
    y[i] = s;
  }
}

void mexFunction(int nlhs, mxArray *plhs[], int nrhs, const mxArray *prhs[]) {
  char name[16];
  (void)nlhs;
  mxGetString(prhs[0], name, sizeof name);
#define S(k) mxGetScalar(prhs[k])
#define COPY(k) mxDuplicateArray(prhs[k])
  if (!strcmp(name, "clos")) {
    plhs[0] = COPY(1);
    clos(mxGetPr(plhs[0]), (int)mxGetM(plhs[0]));
  } else if (!strcmp(name, "nb1d")) {
    plhs[0] = COPY(1);
    plhs[1] = COPY(2);
    nb1d(mxGetPr(plhs[0]), mxGetPr(plhs[1]), mxGetPr(prhs[3]), (int)mxGetNumberOfElements(prhs[1]), (int)S(4), S(5));
  } else if (!strcmp(name, "nb3d")) {
    plhs[0] = COPY(1);
    mxArray *V = COPY(2);
    nb3d(mxGetPr(plhs[0]), mxGetPr(V), mxGetPr(prhs[3]), (int)mxGetM(prhs[1]), (int)S(4), S(5));
    mxDestroyArray(V);
  } else if (!strcmp(name, "fdtd")) {
    int n = (int)S(1);
    mwSize d[3] = {n, n, n};
    plhs[0] = mxCreateNumericArray(3, d, mxDOUBLE_CLASS, mxREAL);
    fdtd(mxGetPr(plhs[0]), n, (int)S(2));
  } else if (!strcmp(name, "capr")) {
    plhs[0] = mxCreateDoubleScalar(capr((int)S(1), (int)S(2)));
  } else if (!strcmp(name, "crni")) {
    int n = (int)S(1);
    plhs[0] = mxCreateDoubleMatrix(n, 1, mxREAL);
    crni(mxGetPr(plhs[0]), n, (int)S(2));
  } else if (!strcmp(name, "diri")) {
    int n = (int)S(1);
    plhs[0] = mxCreateDoubleMatrix(n, n, mxREAL);
    int it = diri(mxGetPr(plhs[0]), n, S(2), (int)S(3));
    plhs[1] = mxCreateDoubleScalar(it);
  } else if (!strcmp(name, "mbrt")) {
    int n = (int)S(1);
    plhs[0] = mxCreateDoubleMatrix(n, n, mxREAL);
    mbrt(mxGetPr(plhs[0]), n, (int)S(2));
  } else if (!strcmp(name, "fiff")) {
    int n = (int)S(1);
    plhs[0] = mxCreateDoubleMatrix(n, n, mxREAL);
    fiff(mxGetPr(plhs[0]), n, (int)S(2));
  } else if (!strcmp(name, "pmc")) {
    int n = (int)mxGetNumberOfElements(prhs[1]);
    plhs[0] = mxCreateDoubleMatrix(n, 1, mxREAL);
    pmc(mxGetPr(plhs[0]), mxGetPr(prhs[1]), n, (int)S(2));
  } else {
    mexErrMsgIdAndTxt("crefs:unknown", "crefs: unknown kernel %s", name);
  }
}
