"""What every phase shares: the MLIR context with the tinyml dialect, the
`#tinyml.lowering` attribute, rewrite-pattern support, diagnostics, and the
numbers the reports read off the IR."""
