# What Velociraptor.jl hands the compiler: definitions as Julia prints them (string(ex)),
# with the `#= FILE:LINE =#` comments that carry the lines of the user's file.
#= /home/u/f.jl:3 =#
