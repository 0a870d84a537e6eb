# Every test file runs with a private on-disk cache (never the user's) and at most 2
# threads (the package's own limit under R CMD check).
vr_options(cache_dir = file.path(tempdir(), "vr-cache"), threads = 2)
