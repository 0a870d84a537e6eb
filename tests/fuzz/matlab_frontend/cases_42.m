function y = mods(a, b)
  y = [mod(a, b), rem(a, b)];
end

