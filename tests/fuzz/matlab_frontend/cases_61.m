function y = gpu_scale(x, a)
  y = x;
  gpu_begin();
  for i = 1:numel(x)
    y(i) = a * x(i);
  end
  gpu_end();
end

