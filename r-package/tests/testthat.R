library(testthat)
library(velociraptor)

test_check("velociraptor")
