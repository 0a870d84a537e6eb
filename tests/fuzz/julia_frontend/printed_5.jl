function h(x::T) where T <: Real
    x[10]
end
