"""Python op classes of the tinyml dialect (generated from ODS)."""
