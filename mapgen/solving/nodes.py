"""The node kinds of a compiled circuit (``mapgen.solving.compiled``), shared with its compiled loops
(``mapgen.solving.kernels``), which freeze them into the loops as constants."""

AND, OR, TRUE_NODE, FALSE_NODE = 0, 1, 2, 3
