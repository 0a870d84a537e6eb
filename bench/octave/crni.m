function u = crni(n, steps)
  % Crank-Nicolson for the heat equation (McLab's crni): a tridiagonal system solved
  % by the Thomas algorithm at every time step.
  dx = 1 / (n + 1);
  dt = 0.5 * dx;
  r = dt / (dx * dx);
  u = zeros(n, 1);
  for i = 1:n
    u(i) = sin(pi * i * dx) + 0.5 * sin(3 * pi * i * dx);
  end
  a = -r / 2; b = 1 + r; c = -r / 2;
  cp = zeros(n, 1);
  d = zeros(n, 1);
  for s = 1:steps
    for i = 1:n
      left = 0; right = 0;
      if i > 1, left = u(i - 1); end
      if i < n, right = u(i + 1); end
      d(i) = (r / 2) * left + (1 - r) * u(i) + (r / 2) * right;
    end
    cp(1) = c / b;
    d(1) = d(1) / b;
    for i = 2:n
      den = b - a * cp(i - 1);
      cp(i) = c / den;
      d(i) = (d(i) - a * d(i - 1)) / den;
    end
    u(n) = d(n);
    for i = n-1:-1:1
      u(i) = d(i) - cp(i) * u(i + 1);
    end
  end
end
