zero_ties(a, b) = (1 / max(a, b), 1 / min(a, b), 1 / clamp(a, b, 1.0))
