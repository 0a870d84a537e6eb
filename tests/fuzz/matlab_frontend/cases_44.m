function y = nrm(x)
  y = norm(x) + norm(x, 1) * 10 + norm(x, Inf) * 100;
end

