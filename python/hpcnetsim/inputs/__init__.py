"""Readers of files other tools write: MPI traces (text, SimGrid, DUMPI, VEF, OTF2) and fabric files."""
