function [x, v] = nb1d(x, v, m, steps, dt)
  % 1-D n-body (McLab's nb1d): pairwise softened gravity, leapfrog steps.
  n = numel(x);
  f = zeros(n, 1);
  for s = 1:steps
    for i = 1:n
      fi = 0;
      for j = 1:n
        d = x(j) - x(i);
        fi = fi + m(j) * d / (abs(d)^3 + 0.01);
      end
      f(i) = fi;
    end
    for i = 1:n
      v(i) = v(i) + dt * f(i);
      x(i) = x(i) + dt * v(i);
    end
  end
end
