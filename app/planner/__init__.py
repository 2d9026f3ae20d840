"""The planner: problems in, a family and config per (problem, arch) out."""
