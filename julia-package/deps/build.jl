# `Pkg.build("Velociraptor")`: build the C library with cargo (as a JLL would ship it
# prebuilt) and record where it is in deps/deps.jl. Skipped when VELOCIRAPTOR_LIB names
# a library already built. The Rust workspace is the repository this package lives in.
const ROOT = normpath(joinpath(@__DIR__, "..", ".."))
const LIBNAME = Sys.iswindows() ? "velociraptor_capi.dll" : Sys.isapple() ? "libvelociraptor_capi.dylib" : "libvelociraptor_capi.so"

function build()
    given = get(ENV, "VELOCIRAPTOR_LIB", "")
    if !isempty(given)
        @info "Velociraptor: using VELOCIRAPTOR_LIB=$given"
        path = given
    else
        cargo = something(Sys.which("cargo"), joinpath(homedir(), ".cargo", "bin", "cargo"))
        isfile(cargo) || error("Velociraptor: cargo not found; install Rust (https://rustup.rs) or set VELOCIRAPTOR_LIB to a built $LIBNAME")
        run(Cmd(`$cargo build --release --locked -p velociraptor-capi`; dir = ROOT))
        path = joinpath(ROOT, "target", "release", LIBNAME)
    end
    isfile(path) || error("Velociraptor: $path does not exist")
    open(joinpath(@__DIR__, "deps.jl"), "w") do io
        println(io, "# written by deps/build.jl")
        println(io, "const BUILT_LIBRARY = ", repr(path))
    end
end

build()
