function cap = capr(n, iters)
  % Capacitance of a transmission line (McLab's capr): the potential between an inner
  % conductor (held at 1) and the grounded box by successive over-relaxation, then the
  % charge from the field on a contour.
  u = zeros(n, n);
  a = floor(n / 3); b = n - a + 1;
  u(a:b, a:b) = 1;
  w = 1.8;
  for it = 1:iters
    for j = 2:n-1
      for i = 2:n-1
        if i < a || i > b || j < a || j > b
          r = 0.25 * (u(i-1, j) + u(i+1, j) + u(i, j-1) + u(i, j+1)) - u(i, j);
          u(i, j) = u(i, j) + w * r;
        end
      end
    end
  end
  q = 0;
  k = a - 1;
  for i = a-1:b+1
    q = q + (u(i, k) - u(i, k - 1)) + (u(i, n - k + 1) - u(i, n - k + 2));
    q = q + (u(k, i) - u(k - 1, i)) + (u(n - k + 1, i) - u(n - k + 2, i));
  end
  cap = q;
end
