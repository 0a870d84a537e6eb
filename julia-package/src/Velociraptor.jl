"""
    Velociraptor

Compiles numeric Julia functions with Velociraptor: `@vr function f(x::Vector{Float64}) ...
end` compiles `f` on its first call for each list of argument types (bounds checks it
can prove away removed, `Threads.@threads` loops run in parallel, `@gpu begin ... end`
sections placed on a GPU where there is one) and calls the compiled code through the C
library with the arguments' own memory. What does not compile runs as ordinary Julia,
with a warning naming the construct and its line (`@vr fallback=false` raises instead).
Run-time errors are `VelociraptorError`s naming the function, line, variable, index and
bound.
"""
module Velociraptor

using Libdl
using Scratch

export @vr, @gpu, VelociraptorError

include("library.jl")
include("capi.jl")
include("errors.jl")
include("values.jl")
include("compile.jl")
include("macro.jl")

"""
    @gpu begin ... end

Marks a section for the GPU. In Julia it is the block itself, so marked code runs
unchanged without Velociraptor; compiled, the section runs on an OpenCL device where
there is one and on the CPU otherwise (the same results).
"""
macro gpu(ex)
    esc(ex)
end

function __init__()
    reset_library!()
end

end # module
