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

