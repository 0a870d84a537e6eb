function B = clos(A)
  % Transitive closure of a graph's adjacency matrix (McLab's clos, as Warshall's
  % loops): B(i,j) is 1 when j can be reached from i.
  n = size(A, 1);
  B = A;
  for k = 1:n
    for j = 1:n
      if B(k, j) ~= 0
        for i = 1:n
          if B(i, k) ~= 0
            B(i, j) = 1;
          end
        end
      end
    end
  end
end
