"""Face elimination (Naumann 2003; Zhou §5): the line graph and its labeled states
(``elimination``), multiplication relations (``relations``), whether an expression set
is a face elimination without circular dependencies (``realize``), the exact
``face-optimal`` search (``optimal``), greedy face elimination in effective
multiplications (``greedy``) and the ``dgraph faces`` command (``command``)."""
