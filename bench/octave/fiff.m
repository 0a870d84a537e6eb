function u = fiff(n, steps)
  % Finite differences for the wave equation on a square membrane (McLab's fiff):
  % three time levels, a five-point Laplacian.
  c2 = 0.2;
  u0 = zeros(n, n);
  for j = 2:n-1
    for i = 2:n-1
      u0(i, j) = sin(pi * (i - 1) / (n - 1)) * sin(2 * pi * (j - 1) / (n - 1));
    end
  end
  u1 = u0;
  u = u0;
  for s = 1:steps
    for j = 2:n-1
      for i = 2:n-1
        u(i, j) = 2 * u1(i, j) - u0(i, j) + c2 * (u1(i-1, j) + u1(i+1, j) + u1(i, j-1) + u1(i, j+1) - 4 * u1(i, j));
      end
    end
    u0 = u1;
    u1 = u;
  end
end
