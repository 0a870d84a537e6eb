# `@vr`: the macro that wraps function definitions. For each definition it keeps the
# original under a hidden name (the fallback) and defines the user's name with the same
# signature (annotations, defaults, `where`), whose body calls `invoke_compiled`. The
# source handed to the compiler is the definitions printed back (`string(ex)`), which
# carries `#= FILE:LINE =#` before each statement: errors name the user's file lines.

"""
    @vr function f(x::Vector{Float64}) ... end
    @vr f(x) = ...
    @vr begin ... end          # several functions that call each other
    @vr fallback=false function f(x) ... end

Compile the function(s) with Velociraptor on the first call for each list of argument
types. With `fallback=true` (the default) a function or a call that does not compile
runs as ordinary Julia, with a warning naming the construct and its line; with
`fallback=false` it raises a `VelociraptorError`.
"""
macro vr(args...)
    isempty(args) && throw(ArgumentError("@vr needs a function definition"))
    fallback = true
    for o in args[1:end-1]
        if o isa Expr && o.head == :(=) && o.args[1] === :fallback && o.args[2] isa Bool
            fallback = o.args[2]
        else
            throw(ArgumentError("@vr: unknown option `$o` (it takes fallback=true or fallback=false)"))
        end
    end
    file = __source__.file === nothing ? "none" : String(__source__.file)
    defs = Tuple{Expr,Int}[]
    collect_defs!(defs, args[end], __source__.line)
    isempty(defs) && throw(ArgumentError("@vr takes a function definition, or a begin ... end block of them"))
    source = join(("#= $file:$line =#\n" * string(d) for (d, line) in defs), "\n\n")
    out = Expr(:block)
    for (d, _) in defs
        push!(out.args, wrap(d, source, fallback))
    end
    return esc(out)
end

is_definition(ex) = ex isa Expr && (ex.head == :function || (ex.head == :(=) && ex.args[1] isa Expr && call_of(ex.args[1]) !== nothing))

"""The `:call` expression inside a signature (under `where` and `::T`), or nothing."""
function call_of(sig)
    while sig isa Expr && (sig.head == :where || sig.head == :(::))
        sig = sig.args[1]
    end
    return sig isa Expr && sig.head == :call ? sig : nothing
end

function collect_defs!(defs, ex, line)
    if ex isa Expr && ex.head == :macrocall
        # `@vr @inline function ...`: look inside.
        inner = filter(a -> !(a isa LineNumberNode), ex.args[2:end])
        length(inner) == 1 && return collect_defs!(defs, inner[1], line)
    end
    if is_definition(ex)
        push!(defs, (ex, line))
    elseif ex isa Expr && ex.head == :block
        for a in ex.args
            if a isa LineNumberNode
                line = a.line
            else
                collect_defs!(defs, a, line)
            end
        end
    end
    return defs
end

"""The name of a parameter (`x`, `x::T`, `x = 1`, `x::T = 1`), or nothing (varargs)."""
function param_name(p)
    p isa Symbol && return p
    p isa Expr || return nothing
    p.head == :kw && return param_name(p.args[1])
    p.head == :(::) && length(p.args) == 2 && return param_name(p.args[1])
    return nothing
end

function wrap(d::Expr, source::String, fallback::Bool)
    sig = d.args[1]
    call = call_of(sig)
    name = call.args[1]
    params = call.args[2:end]
    names = map(param_name, params)
    fname = name isa Symbol ? string(name) : string(name)
    # Keyword arguments and varargs do not compile: the definition stays Julia's.
    if any(p -> p isa Expr && p.head == :parameters, params) || any(isnothing, names) || !(name isa Symbol)
        return quote
            @warn $("Velociraptor: `$fname` has keyword arguments or varargs and runs as ordinary Julia") maxlog = 1
            $d
        end
    end
    hidden = gensym(string(fname, "_julia"))
    original = deepcopy(d)
    call_of(original.args[1]).args[1] = hidden
    entry = gensym(string(fname, "_entry"))
    wrapper = deepcopy(d)
    wrapper_sig = wrapper.args[1]
    body = :($(Velociraptor).invoke_compiled($entry, $hidden, $(names...)))
    w = Expr(:function, wrapper_sig, Expr(:block, body))
    return quote
        $original
        const $entry = $(Velociraptor).Entry($fname, $source, $fallback)
        $(Velociraptor).register($w, $entry)
    end
end
