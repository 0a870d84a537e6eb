complex_build(re, im) = complex(re, im) * 2

