function y = vt_gpu(x, a)
  y = x;
  gpu_begin();
  for i = 1:numel(x)
    y(i) = a * x(i) + 1;
  end
  gpu_end();
end
