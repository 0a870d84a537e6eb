function y = pmc(x, terms)
  % A parfor kernel: for each input an independent series (the Leibniz-style sums of
  % McLab's parallel examples), iterations spread over the cores.
  n = numel(x);
  y = zeros(n, 1);
  parfor i = 1:n
    s = 0;
    t = x(i);
    for k = 1:terms
      s = s + sin(k * t) / k;
    end
    y(i) = s;
  end
end
