function P = nb3d(P, V, m, steps, dt)
  % 3-D n-body (McLab's nb3d): positions and velocities as n x 3 matrices.
  n = size(P, 1);
  F = zeros(n, 3);
  for s = 1:steps
    for i = 1:n
      fx = 0; fy = 0; fz = 0;
      for j = 1:n
        dx = P(j, 1) - P(i, 1);
        dy = P(j, 2) - P(i, 2);
        dz = P(j, 3) - P(i, 3);
        r2 = dx * dx + dy * dy + dz * dz + 0.01;
        w = m(j) / (r2 * sqrt(r2));
        fx = fx + w * dx;
        fy = fy + w * dy;
        fz = fz + w * dz;
      end
      F(i, 1) = fx; F(i, 2) = fy; F(i, 3) = fz;
    end
    for i = 1:n
      for c = 1:3
        V(i, c) = V(i, c) + dt * F(i, c);
        P(i, c) = P(i, c) + dt * V(i, c);
      end
    end
  end
end
