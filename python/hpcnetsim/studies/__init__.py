"""Built-in studies: each reproduces a table or figure of the reference papers."""

from . import thin_tree_throughput

#: Study name → module with ``run(out, full) -> list[Path]`` and a one-line ``TITLE``.
STUDIES = {"thin-tree-throughput": thin_tree_throughput}

__all__ = ["STUDIES"]
