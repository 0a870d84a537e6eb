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

