function [u, it] = diri(n, tol, maxit)
  % The Dirichlet problem on a square (McLab's diri): Jacobi sweeps of Laplace's
  % equation until the largest change is below tol.
  u = zeros(n, n);
  for j = 1:n
    u(1, j) = 1;
  end
  v = u;
  it = 0;
  err = tol + 1;
  while err > tol && it < maxit
    err = 0;
    for j = 2:n-1
      for i = 2:n-1
        v(i, j) = 0.25 * (u(i-1, j) + u(i+1, j) + u(i, j-1) + u(i, j+1));
        e = abs(v(i, j) - u(i, j));
        if e > err
          err = e;
        end
      end
    end
    u = v;
    it = it + 1;
  end
end
