fib(n) = begin
        #= /home/u/f.jl:10 =#
        if n < 2
            n
        else
            fib(n - 1) + fib(n - 2)
        end
    end

#= /home/u/f.jl:12 =#
