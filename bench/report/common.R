# What every chart of the benchmark report shares (sourced by report.R and
# vignette-heat.R): the caption naming where its rows were measured, and the theme.

# "machine; date; commit C" for each distinct origin of the rows of d (CSV columns of
# bench/src/record.rs), one line each.
caption_of <- function(d) {
  parts <- unique(sprintf("%s; %s; commit %s", d$machine, substr(d$date, 1, 10), d$commit))
  paste(parts, collapse = "\n")
}

theme_report <- ggplot2::theme_minimal(base_size = 12) +
  ggplot2::theme(plot.caption = ggplot2::element_text(size = 8, colour = "grey35"), legend.position = "bottom",
    panel.grid.minor = ggplot2::element_blank(), plot.title.position = "plot", plot.caption.position = "plot")
