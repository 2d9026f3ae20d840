"""An empty family registry, for a platform-only copy of the checkout (no
library/): `--//tools/cli:families=//tools/cli:no_families`. Same interface
as library/rocke_families.py."""

FAMILIES = ()
