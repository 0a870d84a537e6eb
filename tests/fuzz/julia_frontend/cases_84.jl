function complex_ops(z, w)
    return z * w, z / w, abs(z), real(z * conj(w)), imag(z^2)
end

