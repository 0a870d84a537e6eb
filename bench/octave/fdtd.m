function Ez = fdtd(n, steps)
  % 3-D finite-difference time-domain (McLab's fdtd, in loops): Yee-cell updates of
  % E and H on an n x n x n grid with a source at the centre.
  Ex = zeros(n, n, n); Ey = zeros(n, n, n); Ez = zeros(n, n, n);
  Hx = zeros(n, n, n); Hy = zeros(n, n, n); Hz = zeros(n, n, n);
  ce = 0.5; ch = 0.5;
  c = floor(n / 2);
  for t = 1:steps
    for k = 1:n-1
      for j = 1:n-1
        for i = 1:n-1
          Hx(i, j, k) = Hx(i, j, k) + ch * ((Ey(i, j, k+1) - Ey(i, j, k)) - (Ez(i, j+1, k) - Ez(i, j, k)));
          Hy(i, j, k) = Hy(i, j, k) + ch * ((Ez(i+1, j, k) - Ez(i, j, k)) - (Ex(i, j, k+1) - Ex(i, j, k)));
          Hz(i, j, k) = Hz(i, j, k) + ch * ((Ex(i, j+1, k) - Ex(i, j, k)) - (Ey(i+1, j, k) - Ey(i, j, k)));
        end
      end
    end
    for k = 2:n
      for j = 2:n
        for i = 2:n
          Ex(i, j, k) = Ex(i, j, k) + ce * ((Hz(i, j, k) - Hz(i, j-1, k)) - (Hy(i, j, k) - Hy(i, j, k-1)));
          Ey(i, j, k) = Ey(i, j, k) + ce * ((Hx(i, j, k) - Hx(i, j, k-1)) - (Hz(i, j, k) - Hz(i-1, j, k)));
          Ez(i, j, k) = Ez(i, j, k) + ce * ((Hy(i, j, k) - Hy(i-1, j, k)) - (Hx(i, j, k) - Hx(i, j-1, k)));
        end
      end
    end
    Ez(c, c, c) = Ez(c, c, c) + sin(0.1 * t);
  end
end
