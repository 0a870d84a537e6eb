% Functions compiled by the MATLAB front end and run in Octave by
% core/tests/frontend_matlab_semantics.rs: both results must be equal.

function s = sumsq(x)
  s = 0;
  for i = 1:numel(x)
    s = s + x(i)^2;
  end
end

function r = fib(n)
  if n < 2
    r = n;
  else
    r = fib(n - 1) + fib(n - 2);
  end
end

function [s, p] = sum_prod(x)
  s = 0;
  p = 1;
  for k = 1:length(x)
    s = s + x(k);
    p = p * x(k);
  end
end

function y = with_nargin(x, scale)
  if nargin < 2
    scale = 10;
  end
  y = x * scale;
end

function [a, b, c] = three(x)
  a = x + 1;
  b = x + 2;
  c = x + 3;
end

function y = uses_three(x)
  [p, q] = three(x);
  [~, ~, r] = three(x);
  y = p * 100 + q * 10 + r + three(x);
end

function y = count_while(n)
  y = 0;
  k = n;
  while k > 1
    if mod(k, 2) == 0
      k = k / 2;
    else
      k = 3 * k + 1;
    end
    y = y + 1;
  end
end

function y = branches(x)
  if x < 0
    y = -1;
  elseif x == 0
    y = 0;
  elseif x < 10
    y = 1;
  else
    y = 2;
  end
end

function y = switcher(x)
  switch x
    case 1
      y = 10;
    case {2, 3}
      y = 20;
    otherwise
      y = -1;
  end
end

function y = breaks(n)
  y = 0;
  for i = 1:n
    if i == 3
      continue;
    end
    if i > 6
      break;
    end
    y = y + i;
  end
end

function y = early(x)
  y = 0;
  for i = 1:numel(x)
    if x(i) < 0
      y = i;
      return;
    end
  end
  y = -1;
end

function m = literals(a, b)
  m = [a b; b a; 1 2];
end

function v = ranges(n)
  v = [1:n, 10:-3:1, 0:0.25:1];
end

function v = frac_range(a, s, b)
  v = a:s:b;
end

function t = frac_loop()
  t = 0;
  for x = 0:0.1:1
    t = t + x;
  end
end

function y = ends(x)
  y = x(end) + x(end - 1) * 10;
end

function r = row_of(A, i)
  r = A(i, :);
end

function c = col_of(A, j)
  c = A(:, j);
end

function v = flat_of(A)
  v = A(:);
end

function B = block_of(A)
  B = A(2:end, [1 3]);
end

function y = linear_slice(x)
  y = x(2:4);
end

function y = gather(x, idx)
  y = x(idx);
end

function y = masked(x)
  y = x(x > 2);
end

function B = transposes(A)
  B = A' + A.';
end

function C = elementwise(A, B)
  C = A .* B + A ./ B - A .^ 2;
end

function C = mm(A, B)
  C = A * B;
end

function y = scalar_expand(A, s)
  y = A * s + s ./ A - 1;
end

function y = cmp(a, b)
  y = (a < b) + (a >= b) * 2 + (a ~= b) * 4;
end

function y = shortcircuit(x, k)
  y = 0;
  if k <= numel(x) && x(k) > 0
    y = 1;
  end
  if k > numel(x) || x(k) < 0
    y = y + 10;
  end
end

function y = logic_ops(a, b)
  y = (a & b) | ~a;
end

function z = cplx(a, b)
  z = (a + b*1i) * (a - 2i) + 3j;
end

function z = cabs(a)
  z = abs(a + 1i * a) + real(a * 1i) + imag(a * 1i);
end

function A = builders(n)
  A = zeros(n) + ones(n, n) * 2 + eye(n);
end

function s = sizes(A)
  [r, c] = size(A);
  s = r * 1000 + c * 100 + numel(A) + length(A) * 10000 + size(A, 1) * 1e6 + isempty(A) * 1e8;
end

function y = reductions(x)
  y = [sum(x), prod(x), mean(x), min(x), max(x), any(x > 3), all(x > 0)];
end

function y = cumulative(x)
  y = cumsum(x);
end

function y = matrix_sums(A)
  y = sum(sum(A)) + max(max(A)) * 100;
end

function y = col_sums(A)
  y = sum(A, 1) + mean(A, 1);
end

function y = row_sums(A)
  y = sum(A, 2);
end

function [m, k] = argmax(x)
  [m, k] = max(x);
end

function y = maths(x)
  y = [abs(x), sqrt(abs(x)), exp(x), log(abs(x) + 1), sin(x), cos(x), tan(x), atan2(x, 2), floor(x), ceil(x), round(x), fix(x)];
end

function y = mods(a, b)
  y = [mod(a, b), rem(a, b)];
end

function y = rounding(x)
  y = round(x);
end

function y = nrm(x)
  y = norm(x) + norm(x, 1) * 10 + norm(x, Inf) * 100;
end

function y = dotp(a, b)
  y = dot(a, b);
end

function y = finds(x)
  y = find(x > 1);
end

function y = tiles(A)
  y = repmat(A, 2, 3);
end

function y = reshaped(A)
  y = reshape(A, 2, []);
end

function y = lin(a, b, n)
  y = linspace(a, b, n);
end

function y = isat(a, b)
  y = int32(a) * b;
end

function y = idiv(a, b)
  y = int32(a) / int32(b);
end

function y = iconv(x)
  y = int32(x);
end

function y = imix(a)
  y = a + 0.5;
end

function y = grow(n)
  y = [];
  for i = 1:n
    y(end + 1) = i * i;
  end
end

function y = grow2(n)
  for i = 1:n
    for j = 1:i
      y(i, j) = i + j;
    end
  end
end

function y = grow_col(n)
  y = zeros(0, 1);
  y(3) = 5;
  y = y + n;
end

function x = modify_arg(x)
  x(1) = 100;
end

function y = caller_keeps(x)
  z = modify_arg(x);
  y = x(1) + z(1);
end

function y = alias_copy(x)
  z = x;
  z(2) = -1;
  y = [x; z];
end

function y = par_square(x)
  y = zeros(size(x));
  parfor i = 1:numel(x)
    y(i) = x(i)^2;
  end
end

function y = gpu_scale(x, a)
  y = x;
  gpu_begin();
  for i = 1:numel(x)
    y(i) = a * x(i);
  end
  gpu_end();
end

function y = loop_columns(v)
  y = 0;
  for e = v
    y = y * 10 + e;
  end
end

function [t, c] = col_total(M)
  % One turn per column, c a column of M; after the loop c is the last column (M
  % itself when M has no rows or no columns: the loop makes no turn).
  t = zeros(size(M, 1), 1);
  for c = M
    t = t + 2 * c;
  end
end

function s = col_norms(M)
  s = zeros(1, 0);
  for c = M
    s(end + 1) = sqrt(sum(c .^ 2));
  end
end

function y = col_snapshot(M)
  % The loop takes the columns of M as M was before the loop.
  y = zeros(size(M, 1), 1);
  for c = M
    M(:, end) = 100;
    y = y * 10 + c;
  end
end

function y = col_nested(A, B)
  % Columns of a product, each against every column of B.
  y = 0;
  for a = A * 2
    for b = B
      y = y + dot(a, b);
    end
  end
end

function y = last_index(n)
  % k is read after the loop: Octave makes it 1:0 (empty) when the loop makes no turn.
  y = 0;
  for k = 1:n
    y = y + k;
  end
  y = y + k;
end

function y = last_elem(v)
  y = 0;
  for e = v
    y = y * 10 + e;
  end
  y = y + e;
end

function y = do_until(n)
  y = 0;
  do
    y = y + n;
    n = n - 1;
  until n <= 0
end

function y = opassign(x)
  y = x;
  y += 2;
  y *= 3;
  y -= 1;
end

function y = logical_idx_assign(x)
  y = x;
  y(y < 0) = 0;
end

function y = slice_assign(A, v)
  y = A;
  y(2, :) = v;
  y(:, 1) = 7;
end

function y = nested_calls(x)
  y = helper_sq(x) + helper_sq(x + 1);
end

function r = helper_sq(v)
  r = v .* v;
end

function y = heat(u, steps)
  [m, n] = size(u);
  for s = 1:steps
    v = u;
    for j = 2:n-1
      for i = 2:m-1
        v(i, j) = 0.25 * (u(i-1, j) + u(i+1, j) + u(i, j-1) + u(i, j+1));
      end
    end
    u = v;
  end
  y = u;
end

function y = mandel(n, iters)
  y = zeros(n, n);
  for r = 1:n
    for c = 1:n
      z = 0;
      k = 0;
      cc = complex(-2 + 2.5 * (c - 1) / n, -1.25 + 2.5 * (r - 1) / n);
      while k < iters && abs(z) <= 2
        z = z * z + cc;
        k = k + 1;
      end
      y(r, c) = k;
    end
  end
end

function y = sqrt_neg(x)
  y = sqrt(x);
end

function y = broadcast(a, b)
  y = a + b;
end

function y = bad_index(x, i)
  y = x(i);
end

function y = user_error(x)
  if x < 0
    error('x must be nonnegative');
  end
  y = sqrt(x);
end

function y = mat_solve(A, b)
  y = A \ b;
end

function y = scalar_idx(x)
  y = x(1) + x(1, 1);
end

function y = bool_ops(x)
  y = ~x;
  y = y | x;
end

function y = trues(n)
  y = true(1, n);
  y(2) = false;
end

function y = neg_range(n)
  y = 0;
  for i = n:-2:1
    y = y * 10 + i;
  end
end

function y = empty_loop(n)
  y = 5;
  for i = 1:n
    y = y + 1;
  end
end

function y = mpow(x)
  y = x ^ 2 + 2 ^ x;
end

function y = neg_pow(x)
  y = x .^ 0.5;
end

function y = store_past_end(n)
  y = zeros(1, 3);
  for i = 1:n
    y(i) = i;
  end
end

function y = loopvar_class(n)
  y = 0;
  for i = 1:n
    y = y + i / 2;
  end
  y = y + i / 4;
end

function y = i64ops(a, b)
  % int64 with int64: exact, saturated, quotients rounded half away from zero.
  x = int64(a);
  z = int64(b);
  y = [x + z, x - z, x .* z, x ./ z, -x, abs(x)];
end

function y = i64mixed(a, b)
  % int64 with a double (Octave's emulated rules: x + int64(b), ...).
  x = int64(a);
  y = [x + b, x - b, b - x, b ./ x, x + true];
end

function y = i64big(k)
  % Values past 2^53, which a double does not hold exactly.
  m = intmax('int64');
  a = int64(9007199254740992) + int64(k);
  y = [m + k, m - k, -m - k - 3, a * 3, a / 3, a + 0.5, a - 0.5, 2.5 + a, a .* 0.5, a / -2, intmin('int64') / -1, m * -2, a * a, -intmin('int64'), abs(intmin('int64')), a + 1e19, a - 1e19, 1e19 - m, a / 0.5];
end

function y = i64cmp(k)
  % Octave compares an int64 with a double through the double first (emulate_mop).
  m = intmax('int64');
  a = int64(9007199254740992) + int64(k);
  y = [a > 9007199254740992, a == 9007199254740992, a < 9007199254740994, m < 2^63, m == 2^63, m >= 2^63, intmin('int64') == -2^63, intmin('int64') < -2^63, a < NaN, a ~= NaN, 2^63 > m, a == a, int64(3) < int64(4), 3 <= int64(3)];
end

function y = i64mul(a, b)
  y = int64(a) .* b;
end

function y = i64div(a, b)
  y = int64(a) / b;
end

function y = i64rdiv(a, b)
  y = a / int64(b);
end

function y = i64arr(v, s)
  % int64 arrays: element-wise with a scalar, a store of a double (rounded), a gather.
  y = v .* 2 + s;
  y(1) = 2.5;
  y = [y, v(end:-1:1)];
end

function s = i64loop(n)
  s = int64(0);
  for k = 1:n
    s = s + k * 1000000007;
    if s > 5e9
      s = s / 3;
    end
  end
end

